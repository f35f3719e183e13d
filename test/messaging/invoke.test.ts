import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { createAgent, registerTenant, SESSIONS_STAND_IN, startServer, unloadSessions, type Tenant } from '../agents/support.js';

describe('messaging: invocation (REST and WebSocket) and the agents\' message store', () => {
  let server: TestServer;
  let t: Tenant;
  let other: Tenant;
  let alice: any;
  let bob: any;
  before(async () => {
    server = await startServer();
    await unloadSessions(server);
    t = await registerTenant(server, 'invoke-org');
    other = await registerTenant(server, 'other-org');
    alice = await createAgent(server, t.operator, { name: 'alice' });
    bob = await createAgent(server, t.operator, { name: 'bob' });
  });
  after(() => server.cleanup());

  it('answers 503 when no extension serves sessions, and records nothing', async () => {
    const res = await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body: { content: 'hello', fromAgentId: alice.id } });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(res.body.error, /needs the sessions extension, which is not loaded/);
    assert.equal((await server.api('GET', `/api/agents/${bob.id}/messages`, { key: t.viewer })).body.total, 0);

    const socket = await server.ws({ key: t.operator });
    try {
      socket.send({ type: 'agent_invoke', fromAgentId: alice.id, toAgentId: bob.id, content: 'hi' });
      const error = await socket.next((m) => m.type === 'error');
      assert.equal(error.code, 'EXTENSION_UNAVAILABLE');
    } finally {
      await socket.close();
    }
  });

  it('starts a session for the target as the same caller, records the message and streams it', async () => {
    const loaded = await server.api('POST', '/api/plugins/load', { body: { path: SESSIONS_STAND_IN } });
    assert.equal(loaded.status, 201, loaded.text);

    const watcher = await server.ws({ key: t.viewer });
    watcher.send({ type: 'subscribe', agentId: bob.id });
    await watcher.next((m) => m.type === 'subscribed');

    const res = await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body: { content: 'please review PR 7', fromAgentId: alice.id } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.message.from, alice.id);
    assert.equal(res.body.message.to, bob.id);
    assert.equal(res.body.message.content, 'please review PR 7');
    assert.equal(res.body.message.txid, null);
    assert.match(res.body.message.txidReason, /not sent on-chain: the chainchat extension is not loaded/, 'the API says why the txid is null (chainchat went with sessions)');
    assert.equal(res.body.message.sessionId, res.body.sessionId);
    assert.equal(res.body.session.agentId, bob.id);

    const received = (await server.api('GET', '/api/fx-sessions/received', { key: t.operator })).body.received;
    assert.equal(received.length, 1);
    assert.deepEqual(received[0].body, { agentId: bob.id, initialPrompt: 'please review PR 7', source: 'agent' });
    assert.equal(received[0].auth.tenantId, t.tenantId);
    assert.equal(received[0].auth.role, 'operator');
    assert.match(received[0].auth.actor, /^key:/);

    const streamed = await watcher.next((m) => m.type === 'agent_message');
    assert.equal(streamed.message.id, res.body.message.id);
    await watcher.close();

    const anonymous = await server.api('POST', `/api/agents/${alice.id}/invoke`, { key: t.owner, body: { content: 'from a person' } });
    assert.equal(anonymous.status, 201);
    assert.equal(anonymous.body.message.from, null);

    const bobHistory = await server.api('GET', `/api/agents/${bob.id}/messages`, { key: t.viewer });
    assert.equal(bobHistory.body.total, 1);
    const aliceHistory = await server.api('GET', `/api/agents/${alice.id}/messages?limit=1&total=true`, { key: t.viewer });
    assert.equal(aliceHistory.body.total, 2, 'alice sent one and received one');
    assert.equal(aliceHistory.body.messages.length, 1);
    assert.equal(aliceHistory.body.messages[0].content, 'from a person', 'newest first');
    const keys = Object.keys(aliceHistory.body.messages[0]).sort();
    assert.deepEqual(keys, ['content', 'createdAt', 'from', 'id', 'sessionId', 'thread', 'to', 'txid', 'txidReason']);
    assert.equal(aliceHistory.body.messages[0].thread, anonymous.body.thread);
  });

  it('invokes over the WebSocket and answers the sender', async () => {
    const socket = await server.ws({ key: t.operator });
    try {
      socket.send({ type: 'agent_invoke', fromAgentId: bob.id, toAgentId: alice.id, content: 'done reviewing' });
      const done = await socket.next((m) => m.type === 'agent_invoked');
      assert.equal(done.toAgentId, alice.id);
      assert.equal(typeof done.sessionId, 'string');
      const history = await server.api('GET', `/api/agents/${alice.id}/messages`, { key: t.viewer });
      assert.equal(history.body.messages[0].id, done.messageId);

      for (const [message, pattern] of [
        [{ type: 'agent_invoke', toAgentId: alice.id, content: 'x' }, /fromAgentId is required/],
        [{ type: 'agent_invoke', fromAgentId: bob.id, toAgentId: alice.id, content: 5 }, /content must be string/],
        [{ type: 'agent_invoke', fromAgentId: bob.id, toAgentId: 'nobody', content: 'x' }, /agent nobody not found/],
        [{ type: 'agent_invoke', fromAgentId: 'ghost', toAgentId: alice.id, content: 'x' }, /agent ghost not found/],
        [{ type: 'agent_invoke', fromAgentId: alice.id, toAgentId: alice.id, content: 'x' }, /cannot message itself/],
      ] as Array<[object, RegExp]>) {
        socket.send(message);
        const error = await socket.next((m) => m.type === 'error');
        assert.match(error.message, pattern);
      }
    } finally {
      await socket.close();
    }
    const viewer = await server.ws({ key: t.viewer });
    try {
      viewer.send({ type: 'agent_invoke', fromAgentId: bob.id, toAgentId: alice.id, content: 'x' });
      assert.equal((await viewer.next((m) => m.type === 'error')).code, 'FORBIDDEN');
    } finally {
      await viewer.close();
    }
  });

  it('refuses bad input and other tenants\' agents', async () => {
    for (const body of [{}, { content: '' }, { content: 3 }, { content: 'x', fromAgentId: 4 }, { content: 'x', extra: 1 }]) {
      const res = await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body: { content: 'x', fromAgentId: 'ghost' } })).status, 404);
    assert.equal((await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.viewer, body: { content: 'x' } })).status, 403);
    assert.equal((await server.api('POST', `/api/agents/${bob.id}/invoke`, { key: other.owner, body: { content: 'x' } })).status, 404);
    const outsider = await createAgent(server, other.owner, { name: 'outsider' });
    const cross = await server.api('POST', `/api/agents/${outsider.id}/invoke`, { key: other.owner, body: { content: 'x', fromAgentId: alice.id } });
    assert.equal(cross.status, 404);
    assert.equal((await server.api('GET', `/api/agents/${bob.id}/messages?offset=-1`, { key: t.viewer })).status, 400);
    assert.equal((await server.api('GET', '/api/fx-sessions/received', { key: other.owner })).body.received.length, 0);
  });
});
