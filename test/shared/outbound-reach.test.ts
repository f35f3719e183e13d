// One outbound reach rule for every extension (sdk/reach.ts): each URL a tenant registers
// is refused when it names the server's own port (even for the instance's own tenant with
// ALLOW_LOOPBACK=1) or, for another tenant, a private address.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Each place a URL is registered, with the body that registers `url`. */
const TARGETS: Array<{ extension: string; method: string; path: string; body: (url: string) => Record<string, unknown> }> = [
  { extension: 'TELEGRAM', method: 'PUT', path: '/api/bridges/telegram', body: (url) => ({ botToken: '1:x', mode: 'polling', apiRoot: url }) },
  { extension: 'NOTIFICATIONS', method: 'POST', path: '/api/notification-channels', body: (url) => ({ type: 'webhook', config: { url } }) },
  { extension: 'CODEHOST', method: 'POST', path: '/api/webhooks', body: (url) => ({ url, events: ['*'] }) },
  { extension: 'A2A', method: 'POST', path: '/api/a2a/remotes', body: (url) => ({ name: 'remote', url }) },
  { extension: 'MCP_SERVERS', method: 'POST', path: '/api/mcp-servers', body: (url) => ({ name: 'remote', transport: 'http', url, agentIds: 'all' }) },
  { extension: 'MARKETPLACE', method: 'POST', path: '/api/marketplace/federation/instances', body: (url) => ({ url }) },
];

describe('one outbound reach rule for every extension', () => {
  let server: TestServer;
  let other: Tenant;

  before(async () => {
    // Loopback allowed everywhere: the server's own port stays out of reach all the same.
    server = await startTestServer({ env: Object.fromEntries(TARGETS.map((t) => [`ROOST_EXT_${t.extension}_ALLOW_LOOPBACK`, '1'])) });
    other = await registerTenant(server, 'reach-other');
  });
  after(() => server?.cleanup());

  for (const target of TARGETS) {
    it(`${target.method} ${target.path}: never the server's own port; another tenant no private address`, async () => {
      const own = await server.api(target.method, target.path, { body: target.body(`http://127.0.0.1:${server.port}/x`) });
      assert.equal(own.status, 403, own.text);
      assert.equal(own.body.code, 'FORBIDDEN');
      assert.match(own.body.error, /this machine/);
      for (const url of ['http://10.1.2.3:8080/x', `http://127.0.0.1:${server.port}/x`, 'http://169.254.169.254/latest']) {
        const res = await server.api(target.method, target.path, { key: other.owner, body: target.body(url) });
        assert.equal(res.status, 403, `${url}: ${res.text}`);
        assert.match(res.body.error, /loopback, private, link-local or reserved|link-local or cloud-metadata/);
      }
    });
  }
});
