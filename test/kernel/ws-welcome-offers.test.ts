// A welcome's `streams` are kept per kind of client (role; member or agent) while the declared streams
// stay the same (kernel/ws/tenant-feeds.ts): a stream loaded or unloaded shows in the next welcome, a
// viewer and an owner are offered what each may receive, and tenant-wide streams still reach both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'ws-offers-owner-key-0123456789abcdef';

describe('WebSocket welcome offers', () => {
  let server: TestServer;
  let viewerKey: string;
  const sockets: TestSocket[] = [];
  const welcome = async (key: string) => {
    const socket = await server.ws({ key });
    sockets.push(socket);
    return { socket, welcome: await socket.next((m) => m.type === 'welcome') };
  };
  const offer = (w: any, key: string) => w.streams.find((s: { key: string }) => s.key === key);

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: OWNER_KEY } });
    viewerKey = (await server.api('POST', '/api/tenants/me/members', { key: OWNER_KEY, body: { role: 'viewer' } })).body.apiKey;
  });
  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await server.cleanup();
  });

  it('says the same welcome, its members in the same order', async () => {
    const { welcome: w } = await welcome(OWNER_KEY);
    assert.deepEqual(Object.keys(w), ['type', 'clientId', 'tenantId', 'role', 'serverVersion', 'heartbeatSeconds', 'streams']);
    assert.deepEqual(offer(w, 'agentId'), { key: 'agentId', types: ['agent_balance', 'agent_updated', 'agent_message'], since: false, tenantWide: true });
    const second = (await welcome(OWNER_KEY)).welcome;
    assert.notEqual(second.clientId, w.clientId);
    assert.deepEqual(second.streams, w.streams);
  });

  it('offers a stream loaded since, to each role as it may receive it, and no longer once it is unloaded', async () => {
    assert.equal(offer((await welcome(OWNER_KEY)).welcome, 'feedId'), undefined);
    assert.equal(offer((await welcome(viewerKey)).welcome, 'feedId'), undefined);
    assert.equal((await loadFixture(server, 'fx-wide', OWNER_KEY)).status, 201);
    const viewer = (await welcome(viewerKey)).welcome;
    assert.equal(viewer.role, 'viewer');
    assert.deepEqual(offer(viewer, 'feedId'), { key: 'feedId', types: ['fx_wide'], since: false, tenantWide: false });
    assert.equal(offer(viewer, 'agentId').tenantWide, true);
    const owner = (await welcome(OWNER_KEY)).welcome;
    assert.equal(offer(owner, 'feedId').tenantWide, true);

    assert.equal((await server.api('POST', '/api/plugins/fx-wide/unload', { key: OWNER_KEY })).status, 200);
    assert.equal(offer((await welcome(OWNER_KEY)).welcome, 'feedId'), undefined);
    assert.equal(offer((await welcome(viewerKey)).welcome, 'feedId'), undefined);
  });

  it('still delivers a tenant-wide stream to every client of the tenant that joined', async () => {
    const owner = (await welcome(OWNER_KEY)).socket;
    const viewer = (await welcome(viewerKey)).socket;
    const created = await server.api('POST', '/api/agents', { key: OWNER_KEY, body: { name: 'offered', model: 'claude-sonnet-4-5' } });
    assert.equal(created.status, 201);
    for (const socket of [owner, viewer]) {
      const update = await socket.next((m) => m.type === 'agent_updated' && m.agent?.id === created.body.id, 10_000);
      assert.equal(update.agent.name, 'offered');
    }
  });
});
