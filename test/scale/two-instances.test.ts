// Two `roost serve` processes on one PostgreSQL database, as behind a load balancer: what is written
// through one is read through the other, bus events cross (LISTEN/NOTIFY) exactly once, and a session
// started on A is streamed to, answered from and stopped through a client of B; plugin changes made
// on A are applied on B.
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { advisoryKey } from '../../lib/storage.js';
import { withClient } from '../storage/support.js';

after(() => stopSharedPostgres());

describe('two instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let anthropic: FakeAnthropic;
  let databaseUrl: string;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: ['Hello.'] });
    databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url };
    [a, b] = await Promise.all([startTestServer({ databaseUrl, env }), startTestServer({ databaseUrl, env })]);
  });
  after(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await anthropic?.close();
  });

  const project = async (server: TestServer, name: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-scale-'));
    const res = await server.api('POST', '/api/projects', { body: { name, workingDir: dir } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  it('applies on B the plugin changes made on A: revoke, grant, unload, load', async () => {
    const feedOn = async (server: TestServer) => (await server.api('GET', '/api/plugins')).body.plugins.find((p: { name: string }) => p.name === 'activity');
    const until = (what: string, holds: (feed: any) => boolean) => waitFor(`B to see ${what}`, async () => (holds(await feedOn(b)) ? true : undefined));
    assert.equal((await a.api('POST', '/api/plugins/activity/revoke', { body: { capability: 'db' } })).status, 200);
    await until('the revoke', (feed) => !feed.capabilities.granted.includes('db'));
    assert.equal((await a.api('POST', '/api/plugins/activity/grant', { body: { capability: 'db' } })).status, 200);
    await until('the grant', (feed) => feed.capabilities.granted.includes('db'));
    assert.equal((await a.api('POST', '/api/plugins/activity/unload')).status, 200);
    await until('the unload', (feed) => feed.state === 'unloaded');
    assert.equal((await b.api('GET', '/api/feed/history')).status, 404, 'B no longer routes to it');
    assert.equal((await a.api('POST', '/api/plugins/load', { body: { name: 'activity' } })).status, 201);
    await until('the load', (feed) => feed.state !== 'unloaded');
    assert.equal((await b.api('GET', '/api/feed/history')).status, 200);
  });

  it('reads through B what was written through A', async () => {
    const p = await project(a, 'written-on-a');
    const read = await b.api('GET', `/api/projects/${p.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, p);
  });

  it("delivers A's bus events to B's WebSocket subscribers once each, large ones included", async () => {
    const p = await project(a, 'streamed');
    const onB = await b.ws();
    const onA = await a.ws();
    for (const ws of [onA, onB]) {
      ws.send({ type: 'subscribe', projectId: p.id });
      await ws.next((m) => m.type === 'subscribed');
    }
    // Over 7 KB: the notification carries a row id, the event itself goes through the kernel's table.
    const description = 'd'.repeat(4_900);
    for (const [i, body] of [{ name: 'renamed-1' }, { description }, { name: 'renamed-3' }].entries()) {
      assert.equal((await a.api('PUT', `/api/projects/${p.id}`, { body })).status, 200, `update ${i}`);
    }
    // B's own update reaches A's client too.
    assert.equal((await b.api('PUT', `/api/projects/${p.id}`, { body: { name: 'from-b' } })).status, 200);
    for (const ws of [onA, onB]) {
      await ws.next((m) => m.type === 'project_updated' && m.project.name === 'from-b', 10_000); // taken out of messages
      const names = ws.messages.filter((m) => m.type === 'project_updated').map((m) => m.project.name);
      assert.deepEqual(names, ['renamed-1', 'renamed-1', 'renamed-3'], 'in order, each once (the second update kept the name)');
      const big = ws.messages.find((m) => m.type === 'project_updated' && m.project.description === description);
      assert.ok(big, 'the large event arrived whole');
    }
    await Promise.all([onA.close(), onB.close()]);
  });

  it('streams a session started on A to a client of B, which talks to it, answers its approvals and stops it', async () => {
    anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'hello.txt', content: 'from B' } }] }, 'Written.']);
    const p = await project(a, 'session-home');
    const agent = (await a.api('POST', '/api/agents', { body: { name: 'scaled', permissionMode: 'default' } })).body;
    const started = await a.api('POST', '/api/sessions', { body: { agentId: agent.id, projectId: p.id } });
    assert.equal(started.status, 201, started.text);
    const session = started.body;

    const ws = await b.ws();
    ws.send({ type: 'subscribe', sessionId: session.id });
    await ws.next((m) => m.type === 'subscribed');
    ws.send({ type: 'send_message', sessionId: session.id, content: 'write hello.txt' });
    const ask = await ws.next((m) => m.type === 'approval_request', 15_000);
    ws.send({ type: 'approval_response', requestId: ask.request.id, behavior: 'allow' });
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'assistant_message' && m.event.text === 'Written.', 15_000);
    assert.equal(await readFile(join(p.workingDir, 'hello.txt'), 'utf8'), 'from B');

    const seqs = ws.messages.filter((m) => m.type === 'session_event').map((m) => m.event.seq);
    assert.equal(new Set(seqs).size, seqs.length, 'no event twice');
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y), 'in order');

    const stopped = await b.api('POST', `/api/sessions/${session.id}/stop`);
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.body.status, 'stopped');
    assert.equal((await a.api('GET', `/api/sessions/${session.id}`)).body.status, 'stopped');
    // One runner ran it (A's): B, whose sessions extension woke for the client, never started one.
    const events = (await b.api('GET', `/api/sessions/${session.id}/events?limit=1000`)).body.events;
    assert.equal(events.filter((e: any) => e.type === 'runner_started').length, 1);
    await ws.close();
  });

  it('answers 404 from B for an approval request no instance is asking', async () => {
    const ws = await b.ws();
    ws.send({ type: 'approval_response', requestId: 'no-such-request', behavior: 'allow' });
    assert.match((await ws.next((m) => m.type === 'error', 20_000)).message, /not found/);
    await ws.close();
  });

  it("takes a session over when the connection holding it fails, and the session goes on", async () => {
    anthropic.setScript(['First.', 'After the takeover.']);
    const p = await project(a, 'taken-over');
    const agent = (await a.api('POST', '/api/agents', { body: { name: 'durable', permissionMode: 'full-auto' } })).body;
    const session = (await a.api('POST', '/api/sessions', { body: { agentId: agent.id, projectId: p.id, initialPrompt: 'hello' } })).body;
    const events = async () => (await b.api('GET', `/api/sessions/${session.id}/events?limit=1000`)).body.events as any[];
    await waitFor('the first answer', async () => ((await events()).some((e) => e.type === 'assistant_message' && e.text === 'First.') ? true : undefined), 15_000);
    // The database ends the connection that holds the session's advisory lock (what a network fault does).
    const [k1, k2] = advisoryKey(`roost:session:${session.id}`);
    const holder = async () => withClient(databaseUrl, async (c) => (await c.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND granted", [k1 >>> 0, k2 >>> 0])).rows[0]?.pid);
    const first = await holder();
    assert.ok(first, 'a backend holds the session');
    await withClient(databaseUrl, (c) => c.query('SELECT pg_terminate_backend($1)', [first]));
    // Whichever instance takes it next restarts it from its summary; it answers again, asked through B.
    await waitFor('a new holder', async () => {
      const next = await holder();
      return next && next !== first ? next : undefined;
    }, 30_000);
    await waitFor('the runner restarted', async () => ((await events()).filter((e) => e.type === 'runner_started').length >= 2 ? true : undefined), 15_000);
    assert.equal((await b.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'still there?' } })).status, 202);
    await waitFor('the answer after the takeover', async () => ((await events()).some((e) => e.type === 'assistant_message' && e.text === 'After the takeover.') ? true : undefined), 20_000);
    assert.equal((await b.api('POST', `/api/sessions/${session.id}/stop`)).status, 200);
  });
});
