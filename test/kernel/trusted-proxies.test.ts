// A proxy on the server's own machine (the docs/scaling.md samples) must not make every keyless caller
// on the internet the owner. Without ROOST_TRUSTED_PROXIES a forwarded request is never local; with
// them, the client X-Forwarded-For names is the caller: for the local rule, rate limits and the log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientAddresses } from '../../kernel/http/client-address.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForLog } from '../fixtures/extensions/helpers.js';

describe('callers behind a proxy', () => {
  let plain: TestServer;
  let proxied: TestServer;
  before(async () => {
    [plain, proxied] = await Promise.all([
      startTestServer(),
      startTestServer({ env: { ROOST_TRUSTED_PROXIES: 'loopback', ROOST_RATE_LIMIT: '3', ROOST_LOG_FORMAT: 'text', ROOST_ACCESS_LOG: 'stderr' } }),
    ]);
  });
  after(() => Promise.all([plain?.cleanup(), proxied?.cleanup()]));

  const me = (server: TestServer, headers: Record<string, string> = {}) => server.api('GET', '/api/tenants/me', { headers });

  it('without trusted proxies, a loopback request that says it was forwarded needs a key', async () => {
    assert.equal((await me(plain)).status, 200, 'the owner on the machine itself');
    for (const headers of [{ 'x-forwarded-for': '203.0.113.7' }, { 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=203.0.113.7' }]) {
      const res = await me(plain, headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.code, 'AUTH_REQUIRED');
    }
  });

  it('behind a trusted proxy, the forwarded client is the caller, and a forged hop does not make it local', async () => {
    assert.equal((await me(proxied, { 'x-forwarded-for': '127.0.0.1' })).status, 200, 'a user on the proxy machine');
    assert.equal((await me(proxied)).status, 200, "the proxy's own request (a health check)");
    // nginx appends the address it saw to whatever the client sent: the hop before the trusted ones wins.
    assert.equal((await me(proxied, { 'x-forwarded-for': '127.0.0.1, 203.0.113.7' })).status, 401);
    assert.equal((await me(proxied, { forwarded: 'for=127.0.0.1' })).status, 401, 'Forwarded alone cannot be told: remote');
    await waitForLog(proxied, /access GET \/api\/tenants\/me 401 [\d.]+ms tenant=- id=\S+ client=203\.0\.113\.7\n/);
  });

  it('limits each forwarded client on its own, not the proxy as one caller', async () => {
    const from = (address: string) => me(proxied, { 'x-forwarded-for': address });
    const first = [];
    for (let i = 0; i < 4; i++) first.push((await from('198.51.100.1')).status);
    assert.deepEqual(first.slice(0, 3), [401, 401, 401]);
    assert.equal(first[3], 429, 'the fourth request of one client in a minute');
    assert.equal((await from('198.51.100.2')).status, 401, 'another client behind the same proxy still has its tokens');
  });

  it('refuses a list it cannot read, naming the variable', () => {
    assert.throws(() => clientAddresses(['not-an-address']), /ROOST_TRUSTED_PROXIES/);
    assert.doesNotThrow(() => clientAddresses(['10.0.0.0/8', '::1', 'uniquelocal']));
  });
});
