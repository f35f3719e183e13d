// The sessions REST API and WebSocket messages: the happy paths of CRUD, and a clear error for every
// kind of bad input (malformed, wrong types, missing fields, oversized, unknown ids, wrong role).
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { alive, startHarness, type Harness } from './harness.js';

describe('the sessions API', () => {
  let h: Harness;
  let agentId: string;
  before(async () => {
    h = await startHarness();
    agentId = (await h.agent()).id;
  });
  after(() => h.close());

  const api = (method: string, path: string, body?: unknown) => h.server.api(method, path, body === undefined ? {} : { body });
  const expectError = async (promise: ReturnType<typeof api>, status: number, code: string, pattern?: RegExp) => {
    const res = await promise;
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.code, code, res.text);
    if (pattern) assert.match(res.body.error, pattern);
  };

  it('creates, lists (with projectId filter and paging), reads, renames and deletes sessions', async () => {
    const project = await h.project();
    const a = await h.session({ agentId, projectId: project.id, name: 'first', source: 'agent', timeoutMinutes: 5, turnsPerContext: 3, approvalTimeoutSeconds: 2, resumeUnitMs: 1000 });
    assert.equal(a.status, 'running');
    assert.equal(a.source, 'agent');
    assert.equal(a.workingDir, project.dir);
    assert.equal(a.turnsPerContext, 3);
    assert.equal(a.approvalTimeoutSeconds, 2);
    assert.equal(a.resumeUnitMs, 1000);
    assert.ok(Date.parse(a.timeoutAt) - Date.parse(a.startedAt) === 5 * 60_000);
    const b = await h.session({ agentId });
    assert.equal(b.source, 'web');
    assert.equal(b.projectId, null);
    assert.match(b.name, /^\S+ \d{4}-\d\d-\d\d \d\d:\d\d$/, 'no name and no prompt: the agent and the time');
    const named = await h.session({ agentId, initialPrompt: '  Fix the flaky login test\n\nIt fails one run in ten on CI.' });
    assert.equal(named.name, 'Fix the flaky login test', 'no name: the first line of the first prompt');
    const long = await h.session({ agentId, initialPrompt: 'Please read every file under src and write a summary of what each module does and how they depend on each other' });
    assert.equal(long.name, 'Please read every file under src and write a summary of…');
    for (const s of [named, long]) await api('POST', `/api/sessions/${s.id}/stop`, {});

    const filtered = await api('GET', `/api/sessions?projectId=${project.id}`);
    assert.deepEqual(filtered.body.sessions.map((s: any) => s.id), [a.id]);
    const page1 = await api('GET', '/api/sessions?limit=1&offset=0&total=true');
    const page2 = await api('GET', '/api/sessions?limit=1&offset=1&total=true');
    assert.equal(page1.body.hasMore, true);
    assert.equal(page1.body.total, page2.body.total);
    assert.ok(page1.body.total >= 2);
    assert.notEqual(page1.body.sessions[0].id, page2.body.sessions[0].id);
    assert.ok((await api('GET', '/api/sessions?status=running')).body.sessions.every((s: any) => s.status === 'running'));

    const renamed = await api('PUT', `/api/sessions/${a.id}`, { name: 'renamed', timeoutMinutes: 10 });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'renamed');
    assert.equal(renamed.body.timeoutMinutes, 10);
    assert.equal((await api('GET', `/api/sessions/${a.id}`)).body.name, 'renamed');

    const runner = await h.hostPid(a.pid);
    const deleted = await api('DELETE', `/api/sessions/${a.id}`);
    assert.equal(deleted.status, 204);
    assert.ok(!alive(runner), 'deleting a running session stops its runner first');
    await expectError(api('GET', `/api/sessions/${a.id}`), 404, 'NOT_FOUND');
    await expectError(api('GET', `/api/sessions/${a.id}/messages`), 404, 'NOT_FOUND');
    assert.ok((await stat(project.dir)).isDirectory(), "a project's directory outlives its sessions");
    assert.ok((await stat(b.workingDir)).isDirectory());
    assert.equal((await api('DELETE', `/api/sessions/${b.id}`)).status, 204);
    await assert.rejects(stat(b.workingDir), 'a session without a project takes its own folder with it');
  });

  it('refuses bad create requests with a clear error and stores nothing', async () => {
    const before = (await api('GET', '/api/sessions')).body.total;
    await expectError(h.server.api('POST', '/api/sessions', { raw: '{"agentId":' }), 400, 'VALIDATION_ERROR', /not valid JSON/);
    await expectError(api('POST', '/api/sessions', {}), 400, 'VALIDATION_ERROR', /body\.agentId is required/);
    await expectError(api('POST', '/api/sessions', []), 400, 'VALIDATION_ERROR');
    await expectError(api('POST', '/api/sessions', { agentId: 42 }), 400, 'VALIDATION_ERROR', /agentId/);
    await expectError(api('POST', '/api/sessions', { agentId, colour: 'red' }), 400, 'VALIDATION_ERROR', /colour is not allowed/);
    await expectError(api('POST', '/api/sessions', { agentId, source: 'email' }), 400, 'VALIDATION_ERROR', /source/);
    await expectError(api('POST', '/api/sessions', { agentId, timeoutMinutes: 0 }), 400, 'VALIDATION_ERROR', /timeoutMinutes/);
    await expectError(api('POST', '/api/sessions', { agentId, timeoutMinutes: 100_000 }), 400, 'VALIDATION_ERROR', /timeoutMinutes/);
    await expectError(api('POST', '/api/sessions', { agentId, turnsPerContext: 1.5 }), 400, 'VALIDATION_ERROR', /turnsPerContext/);
    await expectError(api('POST', '/api/sessions', { agentId, approvalTimeoutSeconds: -1 }), 400, 'VALIDATION_ERROR', /approvalTimeoutSeconds/);
    await expectError(api('POST', '/api/sessions', { agentId, resumeUnitMs: 1 }), 400, 'VALIDATION_ERROR', /resumeUnitMs/);
    await expectError(api('POST', '/api/sessions', { agentId, initialPrompt: '' }), 400, 'VALIDATION_ERROR', /initialPrompt/);
    await expectError(api('POST', '/api/sessions', { agentId, name: '   ' }), 400, 'VALIDATION_ERROR', /name/);
    await expectError(api('POST', '/api/sessions', { agentId, initialPrompt: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE');
    await expectError(api('POST', '/api/sessions', { agentId: 'no-such-agent' }), 404, 'NOT_FOUND', /agent no-such-agent not found/);
    await expectError(api('POST', '/api/sessions', { agentId, projectId: 'no-such-project' }), 404, 'NOT_FOUND', /project no-such-project not found/);
    // A turn paid in advance needs a prompt to answer, and a reservation of this tenant that credits holds.
    await expectError(api('POST', '/api/sessions', { agentId, reservationId: 'r-1' }), 400, 'VALIDATION_ERROR', /initialPrompt/);
    await expectError(api('POST', '/api/sessions', { agentId, initialPrompt: 'hi', reservationId: 'no-such-reservation' }), 404, 'NOT_FOUND', /reservationId: reservation no-such-reservation not found/);
    assert.equal((await api('GET', '/api/sessions')).body.total, before);
  });

  it('refuses bad input on every other endpoint', async () => {
    const s = await h.session({ agentId });
    for (const query of ['limit=0', 'limit=abc', 'limit=5000', 'offset=-1', 'status=sleeping', 'limit=1&limit=2']) {
      await expectError(api('GET', `/api/sessions?${query}`), 400, 'VALIDATION_ERROR');
    }
    await expectError(api('GET', '/api/sessions/nope'), 404, 'NOT_FOUND');
    await expectError(api('PUT', '/api/sessions/nope', { name: 'x' }), 404, 'NOT_FOUND');
    await expectError(api('PUT', `/api/sessions/${s.id}`, {}), 400, 'VALIDATION_ERROR');
    await expectError(api('PUT', `/api/sessions/${s.id}`, { name: 5 }), 400, 'VALIDATION_ERROR', /name/);
    await expectError(api('PUT', `/api/sessions/${s.id}`, { status: 'stopped' }), 400, 'VALIDATION_ERROR', /status is not allowed/);
    await expectError(api('DELETE', '/api/sessions/nope'), 404, 'NOT_FOUND');
    await expectError(api('GET', '/api/sessions/nope/messages'), 404, 'NOT_FOUND');
    await expectError(api('GET', `/api/sessions/${s.id}/messages?limit=100000`), 400, 'VALIDATION_ERROR');
    await expectError(api('POST', `/api/sessions/${s.id}/messages`, {}), 400, 'VALIDATION_ERROR', /content is required/);
    await expectError(api('POST', `/api/sessions/${s.id}/messages`, { content: '' }), 400, 'VALIDATION_ERROR');
    await expectError(api('POST', `/api/sessions/${s.id}/messages`, { content: ['hi'] }), 400, 'VALIDATION_ERROR');
    await expectError(api('POST', '/api/sessions/nope/messages', { content: 'hi' }), 404, 'NOT_FOUND');
    await expectError(api('POST', `/api/sessions/${s.id}/messages`, { content: 'hi', reservationId: 'no-such-reservation' }), 404, 'NOT_FOUND', /reservationId/);
    await expectError(api('GET', `/api/sessions/${s.id}/events?after=-1`), 400, 'VALIDATION_ERROR');
    await expectError(api('GET', `/api/sessions/${s.id}/events?limit=0`), 400, 'VALIDATION_ERROR');
    await expectError(api('POST', '/api/sessions/nope/stop'), 404, 'NOT_FOUND');
    await expectError(api('POST', '/api/sessions/nope/resume'), 404, 'NOT_FOUND');
    await expectError(api('POST', `/api/sessions/${s.id}/resume`), 409, 'CONFLICT', /only a paused/);
    const events = await api('GET', `/api/sessions/${s.id}/events?after=1&limit=1`);
    assert.equal(events.status, 200);
    assert.deepEqual(events.body.events.map((e: any) => e.seq), [2]);
  });

  it('answers bad WebSocket messages with an error and keeps the connection', async () => {
    const s = await h.session({ agentId });
    const ws = await h.server.ws();
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'send_message', sessionId: s.id }, /content is required/],
      [{ type: 'send_message', content: 'hi' }, /sessionId is required/],
      [{ type: 'send_message', sessionId: s.id, content: 7 }, /content/],
      [{ type: 'send_message', sessionId: 'nope', content: 'hi' }, /session nope not found/],
      [{ type: 'send_message', sessionId: s.id, content: 'hi', extra: 1 }, /extra is not allowed/],
      [{ type: 'chat_send', content: 'hi' }, /agentId is required/],
      [{ type: 'chat_send', agentId: 'nope', content: 'hi' }, /agent nope not found/],
      [{ type: 'approval_response', requestId: 'nope', behavior: 'allow' }, /not found/],
      [{ type: 'approval_response', requestId: 'nope', behavior: 'yes' }, /behavior/],
      [{ type: 'subscribe', sessionId: 'nope' }, /not found/],
    ];
    for (const [message, pattern] of cases) {
      ws.send(message);
      const error = await ws.next((m) => m.type === 'error');
      assert.match(error.message, pattern, JSON.stringify(message));
    }
    ws.send('not json');
    assert.equal((await ws.next((m) => m.type === 'error')).code, 'VALIDATION_ERROR');
    ws.send({ type: 'subscribe', sessionId: s.id });
    assert.equal((await ws.next((m) => m.type === 'subscribed')).sessionId, s.id);
    await ws.close();
  });

  it('lets viewers read but not create, message or stop sessions', async () => {
    const s = await h.session({ agentId });
    const member = await api('POST', '/api/tenants/me/members', { role: 'viewer' });
    const viewer = member.body.apiKey;
    assert.equal((await h.server.api('GET', `/api/sessions/${s.id}`, { key: viewer })).status, 200);
    assert.equal((await h.server.api('POST', '/api/sessions', { key: viewer, body: { agentId } })).status, 403);
    assert.equal((await h.server.api('POST', `/api/sessions/${s.id}/messages`, { key: viewer, body: { content: 'hi' } })).status, 403);
    assert.equal((await h.server.api('POST', `/api/sessions/${s.id}/stop`, { key: viewer })).status, 403);
    const ws = await h.server.ws({ key: viewer });
    ws.send({ type: 'send_message', sessionId: s.id, content: 'hi' });
    assert.equal((await ws.next((m) => m.type === 'error')).code, 'FORBIDDEN');
    await ws.close();
  });
});

describe('a server with no model provider configured', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ noProviders: true });
  });
  after(() => h.close());

  it('refuses to start a session and names the variable to set', async () => {
    const claude = await h.agent({ provider: 'anthropic' });
    const res = await h.server.api('POST', '/api/sessions', { body: { agentId: claude.id, initialPrompt: 'hi' } });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'PROVIDER_NOT_CONFIGURED');
    assert.match(res.body.error, /set ANTHROPIC_API_KEY/);
    const llama = await h.agent({ provider: 'ollama', model: 'llama3.2' });
    const local = await h.server.api('POST', '/api/sessions', { body: { agentId: llama.id } });
    assert.equal(local.status, 503);
    assert.match(local.body.error, /set OLLAMA_HOST/);
    assert.equal((await h.server.api('GET', '/api/sessions')).body.total, 0);
  });
});
