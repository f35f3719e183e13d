// The research tools refuse callers without the right to act — no key, a bad key, a foreign web page —
// at /mcp, from a caller that is not the local owner: nothing is searched or loaded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertRefusedWithoutRights, LOCKED_SERVER_ENV, toolCall } from '../helpers/refusals.js';
import { SEARCH_KEY, startFakeSearch, startSite, type FakeSearch, type Site } from './support.js';

const OWNER = 'rk_research_guarded_owner_0123456789abcde';

describe('research tools: callers without the right to act', () => {
  let server: TestServer;
  let search: FakeSearch;
  let site: Site;
  before(async () => {
    [search, site] = await Promise.all([startFakeSearch(() => [{ title: 'x', url: 'https://example.org/', description: 'x' }]), startSite()]);
    server = await startTestServer({ env: { ...LOCKED_SERVER_ENV(OWNER), ROOST_SEARCH_API_URL: search.url, ROOST_SEARCH_API_KEY: SEARCH_KEY, ROOST_EXT_RESEARCH_ALLOW_LOOPBACK: '1' } });
  });
  after(async () => {
    await server.cleanup();
    await Promise.all([search.close(), site.close()]);
  });

  it('refuses no key, a bad key and a foreign origin on every tool, and reaches nothing', async () => {
    await assertRefusedWithoutRights(server, OWNER, [
      toolCall('svc_web_search', { query: 'anything' }),
      toolCall('svc_browser', { url: `${site.url}/roosts` }),
      toolCall('svc_deep_research', { question: 'anything' }),
    ]);
    assert.deepEqual(search.requests, []);
    assert.deepEqual(site.requests, []);
  });
});
