import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

const write = (path: string, content = 'x') => ({ name: 'write_file', input: { path, content } });

describe('approvals, the escalation queue and the operational mode', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  async function start(permissionMode: string, extra: Record<string, unknown> = {}) {
    const project = await h.project();
    const agent = await h.agent({ permissionMode });
    const session = await h.session({ agentId: agent.id, projectId: project.id, ...extra });
    const ws = await h.subscribe(session.id);
    return { project, agent, session, ws };
  }

  it('asks subscribers in default mode and honours allow and deny', async () => {
    h.anthropic.setScript([{ toolUses: [write('a.txt', 'allowed')] }, { toolUses: [write('b.txt', 'denied')] }, 'Done.']);
    const { project, session, ws } = await start('default');
    ws.send({ type: 'send_message', sessionId: session.id, content: 'write two files' });
    const first = await ws.next((m) => m.type === 'approval_request', 10_000);
    assert.equal(first.sessionId, session.id);
    assert.equal(first.request.toolName, 'write_file');
    assert.deepEqual(first.request.input, { path: 'a.txt', content: 'allowed' });
    ws.send({ type: 'approval_response', requestId: first.request.id, behavior: 'allow' });
    const second = await ws.next((m) => m.type === 'approval_request', 10_000);
    ws.send({ type: 'approval_response', requestId: second.request.id, behavior: 'deny' });
    await h.until(session.id, (s) => s.turns === 3 && !s.busy);
    assert.equal(await readFile(join(project.dir, 'a.txt'), 'utf8'), 'allowed');
    await assert.rejects(readFile(join(project.dir, 'b.txt')));
    const tools = (await h.messages(session.id)).filter((m: any) => m.role === 'tool');
    assert.match(tools[1].content, /denied by/);
    const decisions = (await h.events(session.id)).filter((e: any) => e.type === 'approval').map((e: any) => e.behavior);
    assert.deepEqual(decisions, ['allow', 'deny']);
    // An answer to a request that is no longer pending is an error, as is malformed input.
    ws.send({ type: 'approval_response', requestId: first.request.id, behavior: 'allow' });
    assert.match((await ws.next((m) => m.type === 'error')).message, /not found/);
    ws.send({ type: 'approval_response', requestId: 'x', behavior: 'maybe' });
    assert.match((await ws.next((m) => m.type === 'error')).message, /behavior/);
    ws.send({ type: 'approval_response', behavior: 'allow' });
    assert.match((await ws.next((m) => m.type === 'error')).message, /requestId is required/);
  });

  it('denies an unanswered request after the timeout, queues it, and a later allow lets the agent retry once', async () => {
    h.anthropic.setScript([{ toolUses: [write('late.txt', 'late')] }, 'I will wait for an owner.', { toolUses: [write('late.txt', 'late')] }, 'Written now.']);
    const { project, session, ws } = await start('default', { approvalTimeoutSeconds: 0.4 });
    ws.send({ type: 'send_message', sessionId: session.id, content: 'write late.txt' });
    await ws.next((m) => m.type === 'approval_request', 10_000);
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    const denied = (await h.messages(session.id)).find((m: any) => m.role === 'tool');
    assert.match(denied.content, /nobody answered within 0.4 s; the request waits on the escalation queue as/);

    const queue = await h.server.api('GET', '/api/escalation-queue');
    assert.equal(queue.status, 200);
    const entry = queue.body.entries.find((e: any) => e.sessionId === session.id);
    assert.ok(entry);
    assert.equal(entry.status, 'pending');
    assert.equal(entry.reason, 'timeout');
    assert.equal(entry.toolName, 'write_file');

    const resolved = await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { body: { behavior: 'allow' } });
    assert.equal(resolved.status, 200);
    assert.equal(resolved.body.status, 'allowed');
    await h.until(session.id, (s) => s.turns === 4 && !s.busy);
    assert.equal(await readFile(join(project.dir, 'late.txt'), 'utf8'), 'late');
    const approvals = (await h.events(session.id)).filter((e: any) => e.type === 'approval');
    assert.deepEqual(approvals.map((a: any) => [a.behavior, a.by]), [['deny', 'timeout'], ['allow', 'escalation grant']]);
    assert.equal(ws.messages.filter((m) => m.type === 'approval_request').length, 0, 'the retry was not asked again');

    assert.equal((await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { body: { behavior: 'deny' } })).status, 409);
    assert.equal((await h.server.api('POST', '/api/escalation-queue/nope/resolve', { body: { behavior: 'deny' } })).status, 404);
    const bad = await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { body: { behavior: 'perhaps' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    assert.equal((await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { raw: '{"behavior":' })).status, 400);
    assert.equal((await h.server.api('GET', '/api/escalation-queue?limit=0')).status, 400);
  });

  it('accepts edits without asking in acceptEdits mode but asks for commands; plan mode denies both', async () => {
    h.anthropic.setScript([{ toolUses: [write('edit.txt', 'e'), { name: 'run_command', input: { command: 'true' } }] }, 'Done.']);
    const accept = await start('acceptEdits');
    accept.ws.send({ type: 'send_message', sessionId: accept.session.id, content: 'go' });
    const ask = await accept.ws.next((m) => m.type === 'approval_request', 10_000);
    assert.equal(ask.request.toolName, 'run_command');
    accept.ws.send({ type: 'approval_response', requestId: ask.request.id, behavior: 'allow' });
    await h.until(accept.session.id, (s) => s.turns === 2 && !s.busy);
    assert.equal(await readFile(join(accept.project.dir, 'edit.txt'), 'utf8'), 'e');

    h.anthropic.setScript([{ toolUses: [write('plan.txt'), { name: 'list_dir', input: {} }] }, 'Here is my plan.']);
    const plan = await start('plan');
    plan.ws.send({ type: 'send_message', sessionId: plan.session.id, content: 'plan' });
    await h.until(plan.session.id, (s) => s.turns === 2 && !s.busy);
    const tools = (await h.messages(plan.session.id)).filter((m: any) => m.role === 'tool');
    assert.match(tools[0].content, /plan mode/);
    assert.equal(tools[1].isError, false);
    assert.equal(plan.ws.messages.filter((m) => m.type === 'approval_request').length, 0);
  });

  it('holds tool uses on the escalation queue in operational mode "queued" and denies all in "paused"', async () => {
    const setMode = (mode: string) => h.server.api('POST', '/api/operational-mode', { body: { mode } });
    try {
      assert.equal((await setMode('queued')).status, 200);
      h.anthropic.setScript([{ toolUses: [write('q.txt', 'queued'), { name: 'list_dir', input: {} }] }, 'Done.']);
      const { project, session, ws } = await start('full-auto');
      ws.send({ type: 'send_message', sessionId: session.id, content: 'go' });
      const held = await ws.next((m) => m.type === 'approval_request' && m.request.queued === true, 10_000);
      const queue = await h.server.api('GET', `/api/escalation-queue?sessionId=${session.id}`);
      assert.deepEqual(queue.body.entries.map((e: any) => [e.id, e.reason]), [[held.request.id, 'queued']]);
      await new Promise((r) => setTimeout(r, 300));
      await assert.rejects(readFile(join(project.dir, 'q.txt')), 'nothing happens while the entry waits');
      assert.equal((await h.server.api('POST', `/api/escalation-queue/${held.request.id}/resolve`, { body: { behavior: 'allow' } })).status, 200);
      await h.until(session.id, (s) => s.turns === 2 && !s.busy);
      assert.equal(await readFile(join(project.dir, 'q.txt'), 'utf8'), 'queued');

      assert.equal((await setMode('paused')).status, 200);
      h.anthropic.setScript([{ toolUses: [{ name: 'list_dir', input: {} }] }, 'Nothing allowed.']);
      ws.send({ type: 'send_message', sessionId: session.id, content: 'again' });
      await h.until(session.id, (s) => s.turns === 4 && !s.busy);
      const last = (await h.messages(session.id)).filter((m: any) => m.role === 'tool').at(-1);
      assert.match(last.content, /operational mode "paused"/);
    } finally {
      await setMode('normal');
    }
  });
});
