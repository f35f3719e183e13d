import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from '../helpers/wait.js';
import { alive, gone, startHarness, type Harness } from './harness.js';

const listDir = { toolUses: [{ name: 'list_dir', input: {} }] };

describe('session lifecycle: context resets, timeouts, stop, crashes', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const start = async (extra: Record<string, unknown> = {}) => {
    const agent = await h.agent({ permissionMode: 'full-auto' });
    return h.session({ agentId: agent.id, ...extra });
  };

  it('kills and restarts the runner with a summary after 8 turns; the conversation goes on', async () => {
    h.anthropic.setScript([...Array.from({ length: 8 }, () => listDir), 'Finished after nine turns.']);
    const session = await start({ initialPrompt: 'Explore the folder, one look at a time.' });
    const firstPid = session.pid;
    const firstRunner = await h.hostPid(firstPid);
    const done = await h.until(session.id, (s) => s.turns === 9 && !s.busy, 30_000);
    assert.equal(done.turnsPerContext, 8);
    assert.equal(done.contextResets, 1);
    assert.equal(done.contextTurns, 1);
    assert.notEqual(done.pid, firstPid);
    assert.ok(alive(await h.hostPid(done.pid)));
    assert.ok(!alive(firstRunner), 'the first runner is gone');
    const restart = (await h.events(session.id)).find((e: any) => e.type === 'runner_started' && e.reason === 'turn_limit');
    assert.ok(restart);
    assert.equal(restart.previousPid, firstPid);
    assert.equal(restart.turn, 9);
    assert.match(restart.summary, /The user's first request:\nExplore the folder, one look at a time\./);
    assert.match(restart.summary, /tool list_dir returned/);
    const ninth = h.anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!.body;
    assert.match(ninth.system, /## The conversation so far/);
    assert.equal(ninth.messages.length, 1, 'the new context starts small');
    assert.equal(ninth.messages[0].content[0].text, 'Continue the task from where the summary leaves off.');
    const messages = await h.messages(session.id);
    assert.equal(messages.at(-1).content, 'Finished after nine turns.');
    assert.ok(messages.some((m: any) => m.role === 'system' && m.reason === 'turn_limit'));
  });

  it('times out, stops the runner, and can be resumed with a fresh window', async () => {
    const session = await start({ timeoutMinutes: 0.02 });
    const runner = await h.hostPid(session.pid);
    const ws = await h.subscribe(session.id);
    const status = await ws.next((m) => m.type === 'session_status' && m.status === 'timeout', 10_000);
    assert.equal(status.code, 'SESSION_TIMEOUT');
    const timedOut = await h.get(session.id);
    assert.equal(timedOut.status, 'timeout');
    assert.equal(timedOut.pid, null);
    assert.ok(await gone(runner));
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'hello?' } })).status, 409);
    const resumed = await h.server.api('POST', `/api/sessions/${session.id}/resume`);
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.status, 'running');
    assert.ok(alive(await h.hostPid(resumed.body.pid)));
    await ws.next((m) => m.type === 'session_status' && m.status === 'resumed');
    await ws.next((m) => m.type === 'session_status' && m.status === 'running');
    await ws.next((m) => m.type === 'session_status' && m.status === 'timeout', 10_000);
  });

  it('extends its timeout through the svc_extend_timeout MCP tool, at most 120 minutes a call', async () => {
    h.anthropic.setScript([
      { toolUses: [{ name: 'svc_extend_timeout', input: { minutes: 10 } }, { name: 'svc_extend_timeout', input: { minutes: 500 } }] },
      'I have more time now.',
    ]);
    const session = await start({ timeoutMinutes: 1 });
    const before = Date.parse(session.timeoutAt);
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'take your time' } });
    const after = await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    assert.equal(Date.parse(after.timeoutAt) - before, 10 * 60_000);
    const [ok, tooMuch] = (await h.messages(session.id)).filter((m: any) => m.role === 'tool');
    assert.equal(JSON.parse(ok.content).timeoutAt, after.timeoutAt);
    assert.equal(tooMuch.isError, true);
    assert.match(tooMuch.content, /minutes must be <= 120/);

    // Without a session token there is no session to extend.
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.server.url}/mcp`)));
    const result = await client.callTool({ name: 'svc_extend_timeout', arguments: { minutes: 5 } });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /call it from a session/);
    await client.close();
  });

  it('stops for real: the runner process is gone when stop answers', async () => {
    const session = await start();
    const runner = await h.hostPid(session.pid);
    assert.ok(alive(runner));
    const stopped = await h.server.api('POST', `/api/sessions/${session.id}/stop`);
    assert.equal(stopped.status, 200);
    assert.equal(stopped.body.status, 'stopped');
    assert.throws(() => process.kill(runner, 0), /ESRCH/);
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/stop`)).status, 409);
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/resume`)).status, 409);
    assert.equal((await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'hi' } })).status, 409);
  });

  it('restarts a runner killed with SIGKILL, idle or mid-turn, and gives up after repeated crashes', async () => {
    h.anthropic.setScript(['First answer.']);
    const session = await start({ initialPrompt: 'hello' });
    await h.until(session.id, (s) => s.turns === 1 && !s.busy);
    process.kill(await h.hostPid(session.pid), 'SIGKILL');
    const recovered = await h.until(session.id, (s) => s.pid !== null && s.pid !== session.pid);
    assert.equal(recovered.status, 'running');
    const events = await h.events(session.id);
    assert.ok(events.some((e: any) => e.type === 'runner_exited' && e.signal === 'SIGKILL'));
    assert.ok(events.some((e: any) => e.type === 'runner_started' && e.reason === 'crash' && e.previousPid === session.pid));

    // The kill must land while the provider holds the slow answer: once the request has reached the fake.
    // (The killed runner's request is abandoned, so the long delay costs nothing.)
    h.anthropic.setScript([{ text: 'Slow answer.', delayMs: 60_000 }, 'Second try answer.']);
    const asked = h.anthropic.requests.length;
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'take a while' } });
    await waitFor('the slow turn to reach the provider', async () => (h.anthropic.requests.length > asked ? true : undefined), 60_000);
    process.kill(await h.hostPid(recovered.pid), 'SIGKILL');
    const retried = await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    assert.equal(retried.status, 'running');
    assert.equal((await h.messages(session.id)).at(-1).content, 'Second try answer.', 'the interrupted turn was retried by a fresh runner');

    // A turn that completes clears the crash streak; four crashes in a row without progress exceed the budget of three.
    let pid = retried.pid;
    for (let i = 0; i < 4; i++) {
      process.kill(await h.hostPid(pid), 'SIGKILL');
      const next = await h.until(session.id, (s) => s.status === 'error' || (s.pid !== null && s.pid !== pid));
      pid = next.pid;
    }
    const failed = await h.until(session.id, (s) => s.status === 'error');
    assert.equal(failed.statusCode, 'RUNNER_CRASHED');
    assert.match(failed.statusReason, /crashed 4 times/);
    assert.equal(failed.pid, null);
  });
});
