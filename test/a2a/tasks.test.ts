// A2A tasks served by one server: POST /a2a/tasks/send and GET /a2a/tasks/:id (and cancel), with the
// server's own API keys, against the fake Anthropic API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { namedAgent, startMessagingServer, type MessagingServer } from '../messaging/support.js';

const send = (text: string, extra: Record<string, unknown> = {}) => ({ message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text }] }, ...extra });

describe('a2a: tasks for this server\'s agents', () => {
  let h: MessagingServer;
  let t: Tenant;
  let other: Tenant;
  let solo: Tenant;
  const task = (key: string, id: string) => h.server.api('GET', `/a2a/tasks/${id}`, { key });
  const until = (key: string, id: string, state: string) =>
    waitFor(`task ${id} ${state}`, async () => {
      const res = await task(key, id);
      return res.body.status?.state === state ? res.body : undefined;
    }, 60_000);

  before(async () => {
    h = await startMessagingServer({ slowMs: 60_000 });
    t = await registerTenant(h.server, 'a2a-tasks-org');
    other = await registerTenant(h.server, 'a2a-tasks-other');
    solo = await registerTenant(h.server, 'a2a-tasks-solo');
    await namedAgent(h.server, t.operator, 'oracle');
    await namedAgent(h.server, t.operator, 'scribe');
    await namedAgent(h.server, solo.operator, 'lonely');
  });
  after(() => h?.close());

  it('creates a task, runs it in a session of the agent, and answers the A2A shapes', async () => {
    const sent = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('what is A2A?', { agent: 'oracle' }) });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.kind, 'task');
    assert.ok(['submitted', 'working'].includes(sent.body.status.state));
    assert.match(sent.body.status.timestamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(sent.body.history[0].role, 'user');
    assert.deepEqual(sent.body.history[0].parts, [{ kind: 'text', text: 'what is A2A?' }]);

    const done = await until(t.viewer, sent.body.id, 'completed');
    assert.equal(done.contextId, sent.body.contextId);
    assert.deepEqual(done.artifacts[0].parts, [{ kind: 'text', text: 'oracle heard: what is A2A?' }]);
    assert.equal(done.status.message.role, 'agent');
    assert.equal(done.history.length, 2);
    const session = await h.server.api('GET', `/api/sessions/${done.metadata.sessionId}`, { key: t.viewer });
    assert.equal(session.body.source, 'agent');
    assert.equal(session.body.name, `A2A task ${sent.body.id}`);

    const solo1 = await h.server.api('POST', '/a2a/tasks/send', { key: solo.operator, body: { ...send('hello'), id: 'solo-task-1' } });
    assert.equal(solo1.status, 201, solo1.text);
    assert.equal(solo1.body.id, 'solo-task-1');
    assert.equal((await until(solo.viewer, 'solo-task-1', 'completed')).artifacts[0].parts[0].text, 'lonely heard: hello', 'the only agent takes a task that names none');
    // Task ids are per tenant: another tenant may use the same one.
    const same = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('again', { id: 'solo-task-1', metadata: { agent: 'scribe' } }) });
    assert.equal(same.status, 201, same.text);
    assert.equal((await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('again', { id: 'solo-task-1', agent: 'scribe' }) })).status, 409);
  });

  it('cancels a working task and stops its session', async () => {
    const sent = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('SLOW work', { agent: 'scribe' }) });
    assert.equal(sent.status, 201, sent.text);
    const canceled = await h.server.api('POST', `/a2a/tasks/${sent.body.id}/cancel`, { key: t.operator });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status.state, 'canceled');
    assert.equal((await task(t.viewer, sent.body.id)).body.status.state, 'canceled');
    const again = await h.server.api('POST', `/a2a/tasks/${sent.body.id}/cancel`, { key: t.operator });
    assert.equal(again.status, 409);
    assert.match(again.body.error, /is canceled; only a submitted or working task can be canceled/);
    await waitFor('the session to stop', async () => {
      const s = await h.server.api('GET', `/api/sessions/${sent.body.metadata.sessionId}`, { key: t.viewer });
      return s.body.status === 'stopped' ? true : undefined;
    }, 30_000);
  });

  it('refuses bad input, missing keys, viewers and other tenants', async () => {
    const bodies: unknown[] = [
      {},
      { message: { role: 'user', parts: [] } },
      { message: { role: 'agent', parts: [{ kind: 'text', text: 'x' }] } },
      { message: { role: 'user', parts: [{ kind: 'file', file: { uri: 'file:///etc/passwd' } }] } },
      { message: { role: 'user', parts: [{ kind: 'text', text: 'x'.repeat(100_001) }] } },
      { message: { role: 'user', parts: [{ kind: 'text', text: 'x' }] }, id: '../x' },
      { message: { role: 'user', parts: [{ kind: 'text', text: 'x' }] }, extra: 1 },
      send('x'.repeat(60_000), { agent: 'oracle', message: { role: 'user', parts: [{ text: 'x'.repeat(60_000) }, { text: 'y'.repeat(60_000) }] } }),
      [1],
    ];
    for (const body of bodies) assert.equal((await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body })).status, 400, JSON.stringify(body).slice(0, 100));
    const deep = JSON.stringify({ message: { role: 'user', parts: [{ text: 'x' }] }, metadata: { x: JSON.parse('['.repeat(400) + ']'.repeat(400)) } });
    assert.equal((await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, raw: deep, headers: { 'content-type': 'application/json' } })).status, 400);

    const several = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('x') });
    assert.equal(several.status, 400);
    assert.match(several.body.error, /several agents: name one/);
    const unknown = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('x', { agent: 'nobody' }) });
    assert.equal(unknown.status, 404);

    const sent = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: send('mine', { agent: 'oracle' }) });
    assert.equal((await task(other.owner, sent.body.id)).status, 404);
    assert.equal((await h.server.api('POST', `/a2a/tasks/${sent.body.id}/cancel`, { key: other.owner })).status, 404);
    assert.equal((await h.server.api('POST', '/a2a/tasks/send', { key: other.owner, body: send('x', { agent: 'oracle' }) })).status, 404, 'another tenant\'s agent is unknown');
    assert.equal((await h.server.api('POST', '/a2a/tasks/send', { key: t.viewer, body: send('x', { agent: 'oracle' }) })).status, 403);
    assert.equal((await task(t.viewer, 'no-such-task')).status, 404);
    const anonymous = await fetch(`${h.server.url}/a2a/tasks/send`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer roost_wrong' }, body: JSON.stringify(send('x')) });
    assert.ok([401, 403].includes(anonymous.status));
  });
});
