// A session of an allowed agent gets an external stdio MCP server's tools, namespaced, and calls one
// with the approval rules of the server's own MCP tools; an agent not allowed never sees them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';
import { writeStdioServer } from './support.js';

const EXTERNAL = 'mcp__ext__echo';

describe('external MCP tools in sessions', () => {
  let h: Harness;
  let allowed: any;
  let stranger: any;

  before(async () => {
    h = await startHarness();
    allowed = await h.agent({ name: 'ext-user' });
    stranger = await h.agent({ name: 'ext-stranger' });
    const script = await writeStdioServer();
    const res = await h.server.api('POST', '/api/mcp-servers', {
      body: { name: 'ext', transport: 'stdio', command: process.execPath, args: [script], agentIds: [allowed.id] },
    });
    assert.equal(res.status, 201, res.text);
    // The model calls the external tool when it is offered one, and reports what it said.
    h.anthropic.setScript((req) => {
      const last = req.body.messages.at(-1);
      const result = Array.isArray(last.content) ? last.content.find((c: any) => c.type === 'tool_result') : undefined;
      if (result) return `The tool said: ${typeof result.content === 'string' ? result.content : JSON.stringify(result.content)}`;
      const offered = (req.body.tools ?? []).map((t: any) => t.name);
      if (offered.includes(EXTERNAL)) return { toolUses: [{ name: EXTERNAL, input: { text: 'hi from the model' } }] };
      return 'I have no external tools.';
    });
  });
  after(() => h.close());

  const finished = (id: string) => h.until(id, (s) => s.turns >= 1 && !s.busy, 60_000);

  it('offers the allowed agent the namespaced tool; the call is approved by policy and runs', async () => {
    const session = await h.session({ agentId: allowed.id, initialPrompt: 'use your tool' });
    await finished(session.id);
    const events = await h.events(session.id);
    const started = events.find((e: any) => e.type === 'runner_started');
    assert.ok(started.tools.includes(EXTERNAL), started.tools.join());
    assert.equal(started.externalToolsError, null);
    const approval = events.find((e: any) => e.type === 'approval' && e.toolName === EXTERNAL);
    assert.equal(approval.behavior, 'allow');
    assert.equal(approval.by, 'policy');
    const result = events.find((e: any) => e.type === 'tool_result' && e.name === EXTERNAL);
    assert.match(result.output, /^echo: hi from the model \(pid \d+\)$/);
    assert.equal(result.isError, false);
    const offered = h.anthropic.requests.find((r) => r.body.tools?.some((t: any) => t.name === EXTERNAL));
    const spec = offered!.body.tools.find((t: any) => t.name === EXTERNAL);
    assert.match(spec.description, /Echo the text back \(external MCP server "ext"\)/);
    assert.deepEqual(spec.input_schema.required, ['text']);
  });

  it('does not offer the tool to an agent that is not allowed', async () => {
    const session = await h.session({ agentId: stranger.id, initialPrompt: 'use your tool' });
    await finished(session.id);
    const started = (await h.events(session.id)).find((e: any) => e.type === 'runner_started');
    assert.equal(started.tools.some((t: string) => t.startsWith('mcp__')), false, started.tools.join());
    const messages = await h.messages(session.id);
    assert.match(messages.at(-1).content, /no external tools/);
  });

  it('denies the external tool in operational mode "paused", like every tool', async () => {
    assert.equal((await h.server.api('POST', '/api/operational-mode', { body: { mode: 'paused' } })).status, 200);
    try {
      const session = await h.session({ agentId: allowed.id, initialPrompt: 'use your tool' });
      await finished(session.id);
      const result = await waitFor('the denied tool result', async () => (await h.events(session.id)).find((e: any) => e.type === 'tool_result' && e.name === EXTERNAL));
      assert.equal(result.isError, true);
      assert.match(result.output, /operational mode "paused"/);
    } finally {
      await h.server.api('POST', '/api/operational-mode', { body: { mode: 'normal' } });
    }
  });

  it('holds the external tool on the escalation queue in operational mode "queued": an allow there runs it', async () => {
    const setMode = (mode: string) => h.server.api('POST', '/api/operational-mode', { body: { mode } });
    assert.equal((await setMode('queued')).status, 200);
    try {
      const session = await h.session({ agentId: allowed.id });
      const ws = await h.subscribe(session.id);
      ws.send({ type: 'send_message', sessionId: session.id, content: 'use your tool' });
      const held = await ws.next((m) => m.type === 'approval_request' && m.request.toolName === EXTERNAL, 30_000);
      assert.equal(held.request.queued, true);
      assert.deepEqual(held.request.input, { text: 'hi from the model' });
      const queue = await h.server.api('GET', `/api/escalation-queue?sessionId=${session.id}`);
      assert.deepEqual(queue.body.entries.map((e: any) => [e.id, e.toolName, e.reason]), [[held.request.id, EXTERNAL, 'queued']]);
      assert.equal((await h.events(session.id)).some((e: any) => e.type === 'tool_result' && e.name === EXTERNAL), false, 'nothing runs while it waits');
      assert.equal((await h.server.api('POST', `/api/escalation-queue/${held.request.id}/resolve`, { body: { behavior: 'allow' } })).status, 200);
      await finished(session.id);
      const result = (await h.events(session.id)).find((e: any) => e.type === 'tool_result' && e.name === EXTERNAL);
      assert.equal(result.isError, false, result.output);
      assert.match(result.output, /^echo: hi from the model \(pid \d+\)$/);
      const approval = (await h.events(session.id)).find((e: any) => e.type === 'approval' && e.toolName === EXTERNAL);
      assert.deepEqual([approval.behavior, approval.requestId], ['allow', held.request.id]);
    } finally {
      await setMode('normal');
    }
  });

  it('asks the session\'s subscribers about a held external tool: their deny stops it', async () => {
    const setMode = (mode: string) => h.server.api('POST', '/api/operational-mode', { body: { mode } });
    assert.equal((await setMode('queued')).status, 200);
    try {
      const session = await h.session({ agentId: allowed.id });
      const ws = await h.subscribe(session.id);
      ws.send({ type: 'send_message', sessionId: session.id, content: 'use your tool' });
      const asked = await ws.next((m) => m.type === 'approval_request' && m.request.toolName === EXTERNAL, 30_000);
      ws.send({ type: 'approval_response', requestId: asked.request.id, behavior: 'deny' });
      await finished(session.id);
      const result = (await h.events(session.id)).find((e: any) => e.type === 'tool_result' && e.name === EXTERNAL);
      assert.equal(result.isError, true);
      assert.match(result.output, /denied on the escalation queue by/);
      const entry = (await h.server.api('GET', `/api/escalation-queue?sessionId=${session.id}`)).body.entries.find((e: any) => e.id === asked.request.id);
      assert.equal(entry, undefined, 'the answered entry no longer waits');
    } finally {
      await setMode('normal');
    }
  });

  it('refuses an HTTP config on loopback to the instance owner too, unless the owner opted in', async () => {
    const res = await h.server.api('POST', '/api/mcp-servers', { body: { name: 'local', transport: 'http', url: 'http://127.0.0.1:9/mcp', agentIds: 'all' } });
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.error, /127\.0\.0\.1 is this machine \(a loopback address\), which may not be reached from here/);
  });

  it('takes a config change at the next runner: a disabled server\'s tools are gone', async () => {
    const list = await h.server.api('GET', '/api/mcp-servers');
    assert.equal((await h.server.api('PUT', `/api/mcp-servers/${list.body.servers[0].id}`, { body: { enabled: false } })).status, 200);
    const session = await h.session({ agentId: allowed.id, initialPrompt: 'use your tool' });
    await finished(session.id);
    const started = (await h.events(session.id)).find((e: any) => e.type === 'runner_started');
    assert.equal(started.tools.includes(EXTERNAL), false);
  });
});
