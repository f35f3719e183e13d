// What instances sharing a PostgreSQL database must agree on: rate-limit buckets and WebSocket tickets
// (a load balancer may send a caller to either), and singletons — one leader per name, taken over when
// the leader is killed. On SQLite the one process leads everything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { advisoryKey } from '../../lib/storage.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { connectSocket, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

after(() => stopSharedPostgres());

const KEY = 'roost-scale-test-key-0123456789abcdef';

/** Asks the instance, through the fx-probe extension, whether it leads the singleton `name`. */
async function leads(server: TestServer, name: string): Promise<boolean> {
  const res = await server.api('POST', '/api/fx-probe/host', { key: KEY, body: { message: { type: 'leader', name } } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.error, undefined, JSON.stringify(res.body));
  return res.body.value as boolean;
}

describe('instances sharing PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ROOST_API_KEY: KEY, ROOST_LOCAL_AUTH: 'required', ROOST_RATE_LIMIT: '20', ROOST_LEADER_RETRY_MS: '200' };
    a = await startTestServer({ databaseUrl, env });
    b = await startTestServer({ databaseUrl, env });
  });
  after(() => Promise.all([a?.cleanup(), b?.cleanup()]));

  it('share one rate-limit bucket per caller', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) statuses.push((await (i % 2 ? b : a).api('GET', '/api/health', { key: KEY })).status);
    const limited = statuses.findIndex((s) => s === 429);
    // 20 a minute between them (the start-up's own calls may have taken a few): never 20 on each.
    assert.ok(limited > 0 && limited <= 20, `first 429 after ${limited} requests: ${statuses.join(',')}`);
    const res = await a.api('GET', '/api/health', { key: KEY });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  });
});

describe('tickets and leaders across instances', () => {
  let databaseUrl: string;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ROOST_API_KEY: KEY, ROOST_LEADER_RETRY_MS: '200' };
    a = await startTestServer({ databaseUrl, env });
    b = await startTestServer({ databaseUrl, env });
    // Loaded through A, the extension is loaded on B too (kernel/host/plugin-changes.ts).
    assert.equal((await loadFixture(a, 'fx-probe', KEY)).status, 201);
    await waitFor('B to load fx-probe', async () => {
      const state = (await pluginInfo(b, 'fx-probe', KEY))?.state;
      return state !== undefined && state !== 'unloaded' ? true : undefined;
    });
  });
  after(() => Promise.all([a?.cleanup(), b?.cleanup()]));

  it('a ticket from A opens a WebSocket on B, and only once', async () => {
    const issued = await a.api('POST', '/api/ws/ticket', { key: KEY });
    assert.equal(issued.status, 201, issued.text);
    const ws = await connectSocket(`ws://127.0.0.1:${b.port}/ws?ticket=${issued.body.ticket}`);
    assert.equal((await ws.next((m) => m.type === 'welcome')).role, 'owner');
    await ws.close();
    for (const s of [a, b]) await assert.rejects(connectSocket(`ws://127.0.0.1:${s.port}/ws?ticket=${issued.body.ticket}`), (err: any) => err.status === 403);
  });

  it('one leader per singleton; another instance takes over when the leader is killed', async () => {
    assert.equal(await leads(a, 'tick'), true);
    assert.equal(await leads(b, 'tick'), false);
    // Another name is a race of its own: B asks first and leads it.
    assert.equal(await leads(b, 'sweep'), true);
    assert.equal(await leads(a, 'sweep'), false);
    // A name is the asking extension's own: asking for another's ("sessions:runner") names fx-probe's.
    assert.equal(await leads(b, 'sessions:runner'), true);
    await waitForLog(b, /leads "fx-probe:sessions:runner"/);
    assert.doesNotMatch(b.log(), /leads "sessions:runner"/);
    a.process.kill('SIGKILL');
    await a.process;
    await waitFor('B to take over "tick"', async () => ((await leads(b, 'tick')) ? true : undefined), 20_000);
    assert.equal(await leads(b, 'sweep'), true);
    // A new instance joining now leads nothing B leads.
    a = await startTestServer({ databaseUrl, env: { ROOST_API_KEY: KEY, ROOST_LEADER_RETRY_MS: '200' } });
    // (fx-probe is loaded already: the extensions loaded are recorded in the shared kernel schema.)
    assert.equal(await leads(a, 'tick'), false);
  });

  it('no other connection to the database can take a singleton\'s lock: its key is the kernel\'s secret', async () => {
    // As a hostile extension could with its own role: the advisory lock a leader name would have without the secret.
    const { default: pg } = await import('pg');
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      const { rows } = await other.query('SELECT pg_try_advisory_lock($1, $2) AS held', advisoryKey('roost:leader:fx-probe:guarded'));
      assert.equal(rows[0].held, true);
      assert.equal(await leads(b, 'guarded'), true, 'the kernel leads it all the same');
    } finally {
      await other.end();
    }
  });

  it('refuses a leader name that is not a name', async () => {
    const res = await a.api('POST', '/api/fx-probe/host', { key: KEY, body: { message: { type: 'leader', name: 'bad name!' } } });
    assert.equal(res.body.error?.code, 'VALIDATION_ERROR', res.text);
  });
});

describe('leaders on SQLite', () => {
  it('the one process leads every singleton', async () => {
    const server = await startTestServer({ env: { ROOST_API_KEY: KEY, ROOST_DATABASE_URL: '' } });
    try {
      assert.equal((await loadFixture(server, 'fx-probe', KEY)).status, 201);
      assert.equal(await leads(server, 'tick'), true);
    } finally {
      await server.cleanup();
    }
  });
});
