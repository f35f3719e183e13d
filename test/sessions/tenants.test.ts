import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

describe('tenants cannot see or touch each other\'s sessions', () => {
  let h: Harness;
  let alice: string;
  let bob: string;
  before(async () => {
    h = await startHarness();
    const register = async (org: string) => (await h.server.api('POST', '/api/tenants/register', { body: { org } })).body.apiKey as string;
    alice = await register('alice-org');
    bob = await register('bob-org');
  });
  after(() => h.close());

  it('keeps sessions, streams, approvals and escalations within their tenant', async () => {
    h.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'a.txt', content: 'a' } }] }, 'Done.']);
    const aliceAgent = await h.agent({ permissionMode: 'default' }, alice);
    const session = await h.session({ agentId: aliceAgent.id, approvalTimeoutSeconds: 0.5 }, alice);
    const bobAgent = await h.agent({}, bob);
    const bobSession = await h.session({ agentId: bobAgent.id }, bob);

    // Bob cannot use Alice's agent, see her session, or act on it.
    const stolen = await h.server.api('POST', '/api/sessions', { key: bob, body: { agentId: aliceAgent.id } });
    assert.equal(stolen.status, 404);
    for (const [method, path, body] of [
      ['GET', `/api/sessions/${session.id}`],
      ['PUT', `/api/sessions/${session.id}`, { name: 'mine' }],
      ['GET', `/api/sessions/${session.id}/messages`],
      ['GET', `/api/sessions/${session.id}/events`],
      ['POST', `/api/sessions/${session.id}/messages`, { content: 'hi' }],
      ['POST', `/api/sessions/${session.id}/stop`],
      ['POST', `/api/sessions/${session.id}/resume`],
      ['DELETE', `/api/sessions/${session.id}`],
    ] as Array<[string, string, unknown?]>) {
      const res = await h.server.api(method, path, { key: bob, body });
      assert.equal(res.status, 404, `${method} ${path} → ${res.status}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    const bobList = await h.server.api('GET', '/api/sessions', { key: bob });
    assert.deepEqual(bobList.body.sessions.map((s: any) => s.id), [bobSession.id]);
    const aliceList = await h.server.api('GET', '/api/sessions', { key: alice });
    assert.deepEqual(aliceList.body.sessions.map((s: any) => s.id), [session.id]);

    // Bob's WebSocket cannot subscribe to Alice's stream nor send her session a message.
    const bobWs = await h.server.ws({ key: bob });
    bobWs.send({ type: 'subscribe', sessionId: session.id });
    assert.match((await bobWs.next((m) => m.type === 'error')).message, /not found/);
    bobWs.send({ type: 'send_message', sessionId: session.id, content: 'hi' });
    assert.match((await bobWs.next((m) => m.type === 'error')).message, /not found/);

    // Alice's approval request reaches Alice only; Bob cannot answer it.
    const aliceWs = await h.subscribe(session.id, alice);
    await h.server.api('POST', `/api/sessions/${session.id}/messages`, { key: alice, body: { content: 'write' } });
    const request = await aliceWs.next((m) => m.type === 'approval_request', 10_000);
    bobWs.send({ type: 'approval_response', requestId: request.request.id, behavior: 'allow' });
    assert.match((await bobWs.next((m) => m.type === 'error')).message, /not found/);
    assert.ok(!bobWs.messages.some((m) => m.type === 'approval_request' || m.type === 'session_event'));

    // Unanswered, it lands on Alice's escalation queue — not Bob's, and Bob cannot resolve it.
    await h.until(session.id, (s) => s.turns === 2 && !s.busy, 15_000, alice);
    const aliceQueue = await h.server.api('GET', '/api/escalation-queue', { key: alice });
    assert.equal(aliceQueue.body.total, 1);
    const entry = aliceQueue.body.entries[0];
    assert.equal((await h.server.api('GET', '/api/escalation-queue', { key: bob })).body.total, 0);
    assert.equal((await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { key: bob, body: { behavior: 'allow' } })).status, 404);
    assert.equal((await h.server.api('POST', `/api/escalation-queue/${entry.id}/resolve`, { key: alice, body: { behavior: 'deny' } })).status, 200);
    await bobWs.close();
  });

  it('scopes the session token: an agent\'s svc_extend_timeout only reaches its own session', async () => {
    h.anthropic.setScript([{ toolUses: [{ name: 'svc_extend_timeout', input: { minutes: 5 } }] }, 'Extended.']);
    const bobAgent = await h.agent({ permissionMode: 'full-auto' }, bob);
    const bobSession = await h.session({ agentId: bobAgent.id }, bob);
    const aliceAgent = await h.agent({ permissionMode: 'full-auto' }, alice);
    const aliceSession = await h.session({ agentId: aliceAgent.id }, alice);
    await h.server.api('POST', `/api/sessions/${bobSession.id}/messages`, { key: bob, body: { content: 'more time' } });
    const bobAfter = await h.until(bobSession.id, (s) => s.turns === 2 && !s.busy, 15_000, bob);
    assert.equal(Date.parse(bobAfter.timeoutAt) - Date.parse(bobSession.timeoutAt), 5 * 60_000);
    assert.equal((await h.get(aliceSession.id, alice)).timeoutAt, aliceSession.timeoutAt);
  });
});
