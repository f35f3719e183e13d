import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callAs, callTool, mcpClient, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { NOTIFY_ENV, startWorld, stopWorld, type WebhookReceiver } from './support.js';

describe('owner questions', () => {
  let server: TestServer;
  let hook: WebhookReceiver;
  let a: Tenant;
  let b: Tenant;
  let mcp: Client;
  let agentId: string;

  const pendingQuestion = (text: string) => waitFor(`question "${text}" to be pending`, async () => {
    const res = await server.api('GET', '/api/owner-questions?status=pending', { key: a.owner });
    return res.body.questions.find((q: any) => q.question === text);
  });

  before(async () => {
    ({ server, hook, a, b, agentId, mcp } = await startWorld('ask'));
    assert.equal((await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'webhook', config: { url: hook.url } } })).status, 201);
  });
  after(() => stopWorld({ server, hook, mcp }));

  it('blocks until answered through REST; the first answer wins and the channel is told the question closed', async () => {
    const ws = await server.ws({ key: a.owner });
    ws.send({ type: 'subscribe', ownerQuestions: 'all' });
    await ws.next((m) => m.type === 'subscribed');
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Deploy now?', options: ['yes', 'no'], timeout: 2 });
    const announced = await ws.next((m) => m.type === 'owner_question');
    assert.equal(announced.question.question, 'Deploy now?');
    const q = await pendingQuestion('Deploy now?');
    const dispatched = await waitFor('the dispatch', async () => hook.received.find((r) => r.body.kind === 'question' && r.body.questionId === q.id));
    assert.deepEqual(dispatched.body.question, { id: q.id, options: ['yes', 'no'] });
    // Not an option, another tenant, a viewer: refused; nothing changes.
    assert.equal((await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.owner, body: { answer: 'maybe' } })).status, 400);
    assert.equal((await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: b.owner, body: { answer: 'yes' } })).status, 404);
    assert.equal((await server.api('GET', `/api/owner-questions/${q.id}`, { key: b.owner })).status, 404);
    assert.equal((await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.viewer, body: { answer: 'yes' } })).status, 403);
    assert.equal((await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.owner, body: { answer: 42 } })).status, 400);
    const answered = await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.owner, body: { answer: 'YES' } });
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.body.answer, 'yes');
    const second = await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.operator, body: { answer: 'no' } });
    assert.equal(second.status, 409);
    const result = await asking;
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.answered, true);
    assert.equal(result.value.answer, 'yes');
    assert.equal(result.value.channel, 'dashboard');
    assert.equal((await ws.next((m) => m.type === 'owner_question_answered')).question.id, q.id);
    const closed = await waitFor('question_closed', async () => hook.received.find((r) => r.body.kind === 'question_closed' && r.body.questionId === q.id));
    assert.equal(closed.body.reference, dispatched.body.deliveryId);
    assert.match(closed.body.text, /Answered: "yes"/);
    const stored = await server.api('GET', `/api/owner-questions/${q.id}`, { key: a.owner });
    assert.equal(stored.body.status, 'answered');
    assert.deepEqual(stored.body.dispatches.map((d: any) => d.kind).sort(), ['question', 'question_closed']);
    await ws.close();
  });

  it('a bridge answers through the internal route; a late answer is refused with 409', async () => {
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Which region?' });
    const q = await pendingQuestion('Which region?');
    const bad = await callAs(server, a.owner, 'POST', `/api/internal/owner-questions/${q.id}/answer`, { answer: 'eu', channel: 'Not A Channel!' });
    assert.equal(bad.status, 400);
    const accepted = await callAs(server, a.owner, 'POST', `/api/internal/owner-questions/${q.id}/answer`, { answer: 'eu-west', channel: 'telegram', responder: '@owner' });
    assert.deepEqual(accepted, { status: 200, body: { accepted: true } });
    const late = await callAs(server, a.owner, 'POST', `/api/internal/owner-questions/${q.id}/answer`, { answer: 'us', channel: 'slack' });
    assert.equal(late.status, 409);
    const result = await asking;
    assert.equal(result.value.answer, 'eu-west');
    assert.equal(result.value.channel, 'telegram');
    assert.equal(result.value.responder, '@owner');
    const internalFromOutside = await server.api('POST', `/api/internal/owner-questions/${q.id}/answer`, { key: a.owner, body: { answer: 'x', channel: 'slack' } });
    assert.equal(internalFromOutside.status, 404);
  });

  it('times out: the tool answers that nobody replied, the question expires and the channel is told', async () => {
    const result = await callTool(mcp, 'svc_ask_owner', { question: 'Anyone there?', timeout: 1 / 60 });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.answered, false);
    assert.equal(result.value.status, 'expired');
    const closed = await waitFor('question_closed after the timeout', async () => hook.received.find((r) => r.body.kind === 'question_closed' && r.body.questionId === result.value.questionId));
    assert.match(closed.body.text, /timed out/);
    const late = await server.api('POST', `/api/owner-questions/${result.value.questionId}/answer`, { key: a.owner, body: { answer: 'me' } });
    assert.equal(late.status, 409);
    for (const [args, message] of [[{ question: 'x', timeout: 11 }, /timeout/], [{ question: '' }, /question/], [{ question: 'x', options: 'yes' }, /options/], [{ question: 'x', options: ['1', '2', '3', '4', '5', '6'] }, /options/], [{ question: 'x', timeout: 0.001 }, /timeout must be from/]] as const) {
      const refused = await callTool(mcp, 'svc_ask_owner', args);
      assert.equal(refused.isError, true, JSON.stringify(args));
      assert.match(refused.text, message);
    }
    assert.equal((await server.api('GET', '/api/owner-questions?status=nope', { key: a.owner })).status, 400);
  });

  it('a pending question survives a restart: the same call again waits on it, and gets the answer given on another channel', async () => {
    const session = 'session-restart';
    const withSession = await mcpClient(server, (await server.api('POST', `/api/fx-caller/token/${agentId}`, { key: a.owner, body: { sessionId: session } })).body.token);
    const blocked = callTool(withSession, 'svc_ask_owner', { question: 'Survive?', options: ['ok'], timeout: 2 }).catch((err: Error) => ({ isError: true, value: undefined, text: err.message }));
    const q = await pendingQuestion('Survive?');
    await server.stop();
    assert.equal((await blocked).isError, true, 'the call blocked across the restart ends with an error');
    await withSession.close().catch(() => undefined);
    server = await startTestServer({ env: NOTIFY_ENV, dataDir: server.dataDir });
    const still = await server.api('GET', `/api/owner-questions/${q.id}`, { key: a.owner });
    assert.equal(still.body.status, 'pending');
    assert.equal(still.body.waitingCalls, 0, 'the call that asked ended with the old server');
    const again = await mcpClient(server, (await server.api('POST', `/api/fx-caller/token/${agentId}`, { key: a.owner, body: { sessionId: session } })).body.token);
    const reattached = callTool(again, 'svc_ask_owner', { question: 'Survive?', options: ['ok'], timeout: 2 });
    // The call waits on the open question (no second one is asked) until the owner answers it.
    await waitFor('the call to wait again', async () => ((await server.api('GET', `/api/owner-questions/${q.id}`, { key: a.owner })).body.waitingCalls === 1 ? true : undefined));
    assert.equal((await server.api('POST', `/api/owner-questions/${q.id}/answer`, { key: a.owner, body: { answer: 'ok' } })).status, 200);
    const result = await reattached;
    assert.equal(result.value.questionId, q.id);
    assert.equal(result.value.answer, 'ok');
    assert.equal((await server.api('GET', '/api/owner-questions?status=pending', { key: a.owner })).body.questions.filter((x: any) => x.question === 'Survive?').length, 0, 'no second question was asked');

    // Asked again after it was answered, the question goes to the owner anew: an old answer is never reused.
    const asking = callTool(again, 'svc_ask_owner', { question: 'Survive?', options: ['ok', 'no'], timeout: 2 });
    const fresh = await pendingQuestion('Survive?');
    assert.notEqual(fresh.id, q.id);
    assert.equal((await server.api('POST', `/api/owner-questions/${fresh.id}/answer`, { key: a.owner, body: { answer: 'no' } })).status, 200);
    const second = await asking;
    assert.equal(second.value.questionId, fresh.id);
    assert.equal(second.value.answer, 'no');
    await again.close();
    await mcp.close();
    mcp = await mcpClient(server, await agentToken(server, a.owner, agentId));
  });
});

describe('a question\'s lifetime', () => {
  it('never outlasts the wait: a 10-minute question asked now expires when the call stops waiting', async () => {
    const { MAX_WAIT_MS, questionLifetimeMs } = await import('../../extensions/notifications/owner-questions.js');
    const now = 1_000_000;
    assert.equal(questionLifetimeMs(10 * 60_000, now, now), MAX_WAIT_MS, 'clamped to the wait');
    assert.equal(questionLifetimeMs(2 * 60_000, now, now), 2 * 60_000, 'a shorter one is kept');
    assert.equal(questionLifetimeMs(10 * 60_000, now, now + 5_000), MAX_WAIT_MS - 5_000, 'time spent before the question was stored counts');
  });
});
