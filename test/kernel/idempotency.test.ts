// The Idempotency-Key header: a retried change is answered once per (tenant, key) — replayed with
// Idempotent-Replayed, refused when the key names another request (422) or is still running (409 with
// Retry-After), run again when its first answer was a 5xx (nothing kept) — on an extension's route and
// on the kernel's own, across a kill -9 of the extension serving it, and across instances on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

after(() => stopSharedPostgres());

const create = (server: TestServer, key: string | undefined, body: object, apiKey?: string) =>
  server.api('POST', '/api/fx-idem/items', { body, key: apiKey, headers: key === undefined ? {} : { 'idempotency-key': key } });
const items = async (server: TestServer, apiKey?: string) => (await server.api('GET', '/api/fx-idem/items', { key: apiKey })).body.items as Array<{ id: string; name: string }>;
const named = async (server: TestServer, name: string) => (await items(server)).filter((i) => i.name === name);

describe('Idempotency-Key', { timeout: 120_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    assert.equal((await loadFixture(server, 'fx-idem')).status, 201);
  });
  after(() => server?.cleanup());

  it('replays the first answer to a retry with the same key and request, and creates once', async () => {
    const first = await create(server, 'key-replay', { name: 'replayed' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await create(server, 'key-replay', { name: 'replayed' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.match(String(again.headers.get('content-type')), /application\/json/);
    assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'), 'the retry is a request of its own');
    // The key as a structured-field string is the same key.
    assert.equal((await create(server, '"key-replay"', { name: 'replayed' })).headers.get('idempotent-replayed'), 'true');
    assert.equal((await named(server, 'replayed')).length, 1);
    // Without a key, every request runs.
    await create(server, undefined, { name: 'keyless' });
    await create(server, undefined, { name: 'keyless' });
    assert.equal((await named(server, 'keyless')).length, 2);
  });

  it('refuses the same key with another body or path: 422 IDEMPOTENCY_KEY_MISMATCH', async () => {
    assert.equal((await create(server, 'key-mismatch', { name: 'one' })).status, 201);
    const otherBody = await create(server, 'key-mismatch', { name: 'two' });
    assert.equal(otherBody.status, 422, otherBody.text);
    assert.equal(otherBody.body.code, 'IDEMPOTENCY_KEY_MISMATCH');
    const otherPath = await server.api('POST', '/api/fx-idem/fail-next', { body: { times: 0 }, headers: { 'idempotency-key': 'key-mismatch' } });
    assert.equal(otherPath.status, 422);
    assert.equal((await named(server, 'two')).length, 0);
  });

  it('keeps keys per tenant: another tenant\'s same key runs its own request', async () => {
    const tenant = await server.api('POST', '/api/tenants/register', { body: { org: 'idem-other' } });
    assert.equal(tenant.status, 201, tenant.text);
    const theirs = await create(server, 'key-replay', { name: 'replayed' }, tenant.body.apiKey);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.equal((await items(server, tenant.body.apiKey)).length, 1);
  });

  it('answers 409 with Retry-After while the first request runs, then replays its answer', async () => {
    const first = create(server, 'key-in-flight', { name: 'held', hold: true });
    await waitFor('the create to be held', async () => ((await server.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    const busy = await create(server, 'key-in-flight', { name: 'held', hold: true });
    assert.equal(busy.status, 409, busy.text);
    assert.equal(busy.body.code, 'IDEMPOTENCY_KEY_IN_USE');
    assert.ok(Number(busy.headers.get('retry-after')) >= 1);
    assert.equal((await server.api('POST', '/api/fx-idem/release')).status, 200);
    const answered = await first;
    assert.equal(answered.status, 201);
    const replayed = await create(server, 'key-in-flight', { name: 'held', hold: true });
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, answered.body);
    assert.equal((await named(server, 'held')).length, 1);
  });

  it('keeps no 5xx answer: the retry runs', async () => {
    await server.api('POST', '/api/fx-idem/fail-next', { body: { times: 1 } });
    const failed = await create(server, 'key-5xx', { name: 'after-503' });
    assert.equal(failed.status, 503);
    const retried = await create(server, 'key-5xx', { name: 'after-503' });
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal((await named(server, 'after-503')).length, 1);
  });

  it('a create in flight when its extension is killed answers 503; the retry with the key makes exactly one', async () => {
    const { pid } = await pluginInfo(server, 'fx-idem');
    const inFlight = create(server, 'key-killed', { name: 'survives-kill', hold: true });
    await waitFor('the create to be held', async () => ((await server.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    process.kill(pid, 'SIGKILL');
    const cut = await inFlight;
    assert.equal(cut.status, 503, cut.text);
    await waitFor('fx-idem to come back', async () => {
      const info = await pluginInfo(server, 'fx-idem');
      return info.state === 'running' && info.pid !== pid ? true : undefined;
    }, 30_000);
    // The client retries the same request with the same key: it runs (nothing was kept), once.
    const retried = create(server, 'key-killed', { name: 'survives-kill', hold: true });
    await waitFor('the retry to be held', async () => ((await server.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    await server.api('POST', '/api/fx-idem/release');
    assert.equal((await retried).status, 201);
    assert.equal((await create(server, 'key-killed', { name: 'survives-kill', hold: true })).headers.get('idempotent-replayed'), 'true');
    assert.equal((await named(server, 'survives-kill')).length, 1);
  });

  it('replays a kernel route\'s answer, keeps none marked no-store, and refuses a malformed key', async () => {
    const ticket = await server.api('POST', '/api/ws/ticket', { headers: { 'idempotency-key': 'key-ticket' } });
    assert.equal(ticket.status, 201, ticket.text);
    const again = await server.api('POST', '/api/ws/ticket', { headers: { 'idempotency-key': 'key-ticket' } });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.ticket, ticket.body.ticket);
    // A kernel route with a JSON body: the body reaches the route (read once, by the key check).
    const member = { role: 'viewer', label: 'idem' };
    const added = await server.api('POST', '/api/tenants/me/members', { body: member, headers: { 'idempotency-key': 'key-member' } });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.role, 'viewer');
    // Its answer carries a new API key, marked no-store: never kept, so the retry runs again.
    const secondMember = await server.api('POST', '/api/tenants/me/members', { body: member, headers: { 'idempotency-key': 'key-member' } });
    assert.equal(secondMember.headers.get('idempotent-replayed'), null);
    assert.notEqual(secondMember.body.apiKey, added.body.apiKey);
    for (const bad of ['x'.repeat(256), 'caf\u00e9', '"unterminated']) {
      const res = await create(server, bad, { name: 'bad-key' });
      assert.equal(res.status, 400, bad);
      assert.match(res.body.error, /Idempotency-Key/);
    }
  });

  it('a key whose server was killed mid-request is free after a restart on SQLite, held until its lease ends on PostgreSQL', async () => {
    const inFlight = create(server, 'key-server-killed', { name: 'server-killed', hold: true }).catch(() => undefined);
    await waitFor('the create to be held', async () => ((await server.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    server.process.kill('SIGKILL');
    await inFlight;
    server = await startTestServer({ dataDir: server.dataDir });
    await waitFor('fx-idem to run', async () => ((await pluginInfo(server, 'fx-idem'))?.state === 'running' ? true : undefined), 30_000);
    if (server.databaseUrl) {
      // Another instance could still be serving it: only the lease (the route's timeout and more) frees it.
      const busy = await create(server, 'key-server-killed', { name: 'server-killed', hold: true });
      assert.equal(busy.status, 409, busy.text);
      return;
    }
    // One process serves SQLite: the claim of the killed one is dead, and the retry runs, once.
    const retried = create(server, 'key-server-killed', { name: 'server-killed', hold: true });
    await waitFor('the retry to be held', async () => ((await server.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    await server.api('POST', '/api/fx-idem/release');
    assert.equal((await retried).status, 201);
    assert.equal((await named(server, 'server-killed')).length, 1);
  });
});

describe('Idempotency-Key expiry', { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_IDEMPOTENCY_TTL_SECONDS: '1' } });
    assert.equal((await loadFixture(server, 'fx-idem')).status, 201);
  });
  after(() => server?.cleanup());

  it('frees a key once its answer expired: the retry then runs again', async () => {
    assert.equal((await create(server, 'key-expiring', { name: 'expiring' })).status, 201);
    const fresh = await waitFor('the key to expire', async () => {
      const res = await create(server, 'key-expiring', { name: 'expiring' });
      return res.headers.get('idempotent-replayed') === null ? res : undefined;
    });
    assert.equal(fresh.status, 201);
    assert.equal((await named(server, 'expiring')).length, 2);
  });
});

describe('Idempotency-Key across instances on PostgreSQL', { timeout: 120_000 }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    a = await startTestServer({ databaseUrl });
    b = await startTestServer({ databaseUrl });
    assert.equal((await loadFixture(a, 'fx-idem')).status, 201);
    // Loaded through A, the extension is loaded on B too.
    await waitFor('B to load fx-idem', async () => ((await pluginInfo(b, 'fx-idem'))?.state === 'running' ? true : undefined), 30_000);
  });
  after(() => Promise.all([a?.cleanup(), b?.cleanup()]));

  it('a key used on one instance is busy, then replayed, on the other', async () => {
    const first = create(a, 'key-shared', { name: 'shared', hold: true });
    await waitFor('A to hold the create', async () => ((await a.api('GET', '/api/fx-idem/state')).body.held === 1 ? true : undefined));
    const busy = await create(b, 'key-shared', { name: 'shared', hold: true });
    assert.equal(busy.status, 409, busy.text);
    await a.api('POST', '/api/fx-idem/release');
    const answered = await first;
    assert.equal(answered.status, 201);
    const replayed = await create(b, 'key-shared', { name: 'shared', hold: true });
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, answered.body);
    assert.equal((await create(b, 'key-shared', { name: 'other' })).status, 422);
  });
});
