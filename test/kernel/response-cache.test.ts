// The kernel's cache of declared reads (kernel/http/response-cache.ts): a repeated read costs the
// extension nothing, and no answer outlives a change — made through the owner's own route, announced on
// the bus, or by a restart — or reaches another tenant or caller. The fx-cached fixture counts the reads
// it served itself; the agents extension is the real user of [server.cache].
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixture, pluginInfo } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';

describe('the response cache', { skip: onPostgres && 'the cache is off on PostgreSQL (several instances)' }, () => {
  let server: TestServer;
  const value = async (key?: string) => {
    const res = await server.api('GET', '/api/fx-cached/value', { key });
    assert.equal(res.status, 200, res.text);
    return res.body as { value: number; served: number; tenantId: string; role: string; actor: string; pid: number };
  };

  before(async () => {
    server = await startTestServer();
    for (const name of ['fx-cached', 'fx-emitter']) {
      const res = await server.api('POST', '/api/plugins/load', { body: { path: name === 'fx-cached' ? fixture(name) : fixture('_reputation/fx-emitter') } });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(() => server?.cleanup());

  it('answers a repeated read itself, and reads a write to the owner back at once', async () => {
    const first = await value();
    assert.deepEqual(await value(), first, 'the second read is the kept answer: the extension served no other');
    assert.equal((await server.api('POST', '/api/fx-cached/value', { body: { value: 41 } })).status, 200);
    const written = await value();
    assert.equal(written.value, 41);
    assert.equal(written.served, first.served + 1);
  });

  it('forgets a tenant\'s answers on an event the owner names, and only that tenant\'s', async () => {
    const other = await server.api('POST', '/api/tenants/register', { body: { org: 'cache-other' } });
    assert.equal(other.status, 201, other.text);
    const otherKey = other.body.apiKey;
    const theirs = await value(otherKey);
    assert.equal(theirs.tenantId, other.body.tenant.id, 'another tenant never gets the owner tenant\'s answer');
    const mine = await value();
    assert.notEqual(mine.tenantId, theirs.tenantId);

    // The change arrives by the bus alone: fx-emitter publishes, fx-cached hears it and announces it.
    assert.equal((await server.api('POST', '/api/fx-emitter/emit', { body: { topic: 'fx-nudge.one', payload: {} } })).status, 202);
    const changed = await waitFor('the owner tenant\'s read to show the nudge', async () => {
      const now = await value();
      return now.value === mine.value + 1 ? now : undefined;
    });
    assert.ok(changed.served > mine.served);
    assert.deepEqual(await value(otherKey), theirs, 'the other tenant\'s kept answer stays');
  });

  it('keeps callers of one tenant apart', async () => {
    const viewer = await server.api('POST', '/api/tenants/me/members', { body: { role: 'viewer' } });
    assert.equal(viewer.status, 201, viewer.text);
    const owner = await value();
    const seen = await value(viewer.body.apiKey);
    assert.equal(seen.role, 'viewer');
    assert.equal(owner.role, 'owner');
    assert.deepEqual(await value(viewer.body.apiKey), seen);
  });

  it('forgets what an extension answered when it starts again', async () => {
    await server.api('POST', '/api/fx-cached/value', { body: { value: 7 } });
    const kept = await value();
    assert.equal(kept.value, 7);
    const { pid } = await pluginInfo(server, 'fx-cached');
    process.kill(pid, 'SIGKILL'); // its state lived in memory: the supervisor's new process starts at 0
    await waitFor('fx-cached to run again', async () => {
      const info = await pluginInfo(server, 'fx-cached');
      return info.state === 'running' && info.pid !== pid ? info : undefined;
    }, 30_000);
    assert.equal((await value()).value, 0, 'the new process answers, not the kept answer');
  });

  it('lets the agents list and an agent be read back after every change', async () => {
    const list = async () => (await server.api('GET', '/api/agents?limit=100')).body;
    const before = await list();
    const created = await server.api('POST', '/api/agents', { body: { name: 'cached-one', model: 'claude-sonnet-5-5' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    assert.ok((await list()).agents.some((a: { id: string }) => a.id === id), 'the new agent is listed at once');
    assert.notDeepEqual(await list(), before);
    assert.equal((await server.api('GET', `/api/agents/${id}`)).body.name, 'cached-one');
    assert.equal((await server.api('PUT', `/api/agents/${id}`, { body: { name: 'cached-two' } })).status, 200);
    assert.equal((await server.api('GET', `/api/agents/${id}`)).body.name, 'cached-two');
    assert.equal((await server.api('DELETE', `/api/agents/${id}`)).status, 204);
    assert.equal((await server.api('GET', `/api/agents/${id}`)).status, 404);
    assert.ok(!(await list()).agents.some((a: { id: string }) => a.id === id));
  });
});
