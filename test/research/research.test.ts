// The research tools through the MCP SDK client at /mcp: svc_web_search against a fake Brave Search
// API, svc_browser against a local site in the system's Chromium, svc_deep_research end to end with
// the fake Anthropic API summarising as the calling agent.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { agentToken, callTool, createAgent, FIXTURES, mcpClient, registerTenant } from '../agents/support.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { SEARCH_KEY, startFakeSearch, startSite, type FakeSearch, type Site } from './support.js';

/** A loopback port nobody listens on (one the OS just handed out and that was closed again). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('research tools', () => {
  let server: TestServer;
  let site: Site;
  let search: FakeSearch;
  let anthropic: FakeAnthropic;
  let owner: Client;

  before(async () => {
    site = await startSite();
    search = await startFakeSearch((q) => (q.includes('roost') ? [
      { title: 'About roosts', url: `${site.url}/roosts`, description: 'Where birds roost' },
      { title: 'Broken', url: `${site.url}/broken-link-404`, description: 'A roost page that is gone' },
      { title: 'Owls', url: `${site.url}/owls`, description: 'Owls roost by day' },
      { title: 'Bats', url: `${site.url}/bats`, description: 'Bats roost in caves' },
      { title: 'Unreached', url: `${site.url}/roosts?again`, description: 'Not needed at depth 1' },
    ] : []));
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: ['Birds, owls and bats all roost [1][2].'] });
    server = await startTestServer({
      env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_SEARCH_API_URL: search.url, ROOST_SEARCH_API_KEY: SEARCH_KEY, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXT_RESEARCH_ALLOW_LOOPBACK: '1' },
    });
    owner = await mcpClient(server);
  });
  after(async () => {
    await owner?.close();
    await server.cleanup();
    await Promise.all([site.close(), search.close(), anthropic.close()]);
  });

  it('svc_web_search returns the search API\'s results, asked with the subscription token', async () => {
    const res = await callTool(owner, 'svc_web_search', { query: 'why birds roost', count: 3 });
    assert.equal(res.isError, false, res.text);
    assert.equal(res.value.query, 'why birds roost');
    assert.deepEqual(res.value.results[0], { title: 'About roosts', url: `${site.url}/roosts`, description: 'Where birds roost' });
    assert.equal(res.value.results.length, 3);
    assert.deepEqual(search.requests.at(-1), { q: 'why birds roost', count: '3', token: SEARCH_KEY });
    const none = await callTool(owner, 'svc_web_search', { query: 'nothing matches' });
    assert.deepEqual(none.value.results, []);
  });

  it('svc_web_search refuses bad arguments and reports the API\'s errors', async () => {
    for (const args of [{}, { query: '' }, { query: 'x', count: 21 }, { query: 'x', count: 'many' }, { query: 'x', extra: 1 }, { query: 'q'.repeat(401) }]) {
      const res = await callTool(owner, 'svc_web_search', args);
      assert.equal(res.isError, true, JSON.stringify(args));
    }
    const limited = await callTool(owner, 'svc_web_search', { query: 'rate limited' });
    assert.equal(limited.isError, true);
    assert.match(limited.text, /the search API answered 429: Request rate limit exceeded for plan. \(RATE_LIMITED\)/);
  });

  it('svc_browser reads a page\'s text and its http(s) links', async () => {
    const text = await callTool(owner, 'svc_browser', { url: `${site.url}/roosts`, action: 'text' });
    assert.equal(text.isError, false, text.text);
    assert.equal(text.value.title, 'About roosts');
    assert.equal(text.value.status, 200);
    assert.match(text.value.text, /Birds sleep in roosts at night\./);
    assert.equal(text.value.truncated, false);
    const links = await callTool(owner, 'svc_browser', { url: `${site.url}/roosts`, action: 'links' });
    assert.deepEqual(links.value.links, [{ text: 'Owls', href: `${site.url}/owls` }, { text: 'Elsewhere', href: 'https://example.org/x' }]);
    const long = await callTool(owner, 'svc_browser', { url: `${site.url}/long` });
    assert.equal(long.value.truncated, true);
    assert.equal(long.value.text.length, 100_000);
  });

  it('svc_browser returns a PNG screenshot as an MCP image', async () => {
    const result = await owner.callTool({ name: 'svc_browser', arguments: { url: `${site.url}/owls`, action: 'screenshot' } });
    assert.equal(result.isError, false, JSON.stringify(result.content).slice(0, 300));
    const [info, image] = result.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
    assert.equal(JSON.parse(info!.text!).title, 'Owls');
    assert.equal(image!.type, 'image');
    assert.equal(image!.mimeType, 'image/png');
    const png = Buffer.from(image!.data!, 'base64');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.length > 1000);
  });

  it('svc_browser refuses what is not http(s), and says why a page failed', async () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ftp://example.org/', 'data:text/html,hi', 'not a url']) {
      const res = await callTool(owner, 'svc_browser', { url });
      assert.equal(res.isError, true, url);
      assert.match(res.text, /only http and https URLs are loaded|is not a URL/, url);
    }
    const redirected = await callTool(owner, 'svc_browser', { url: `${site.url}/to-file` });
    assert.equal(redirected.isError, true);
    const closed = await closedPort();
    const refused = await callTool(owner, 'svc_browser', { url: `http://127.0.0.1:${closed}/` });
    assert.equal(refused.isError, true);
    assert.match(refused.text, new RegExp(`loading http://127\\.0\\.0\\.1:${closed}/ failed: 127\\.0\\.0\\.1:${closed} could not be reached: ECONNREFUSED`));
    const bad = await callTool(owner, 'svc_browser', { url: `${site.url}/owls`, action: 'print' });
    assert.equal(bad.isError, true);
  });

  it('svc_browser never reaches the server\'s own port, even with loopback allowed, nor metadata addresses', async () => {
    const own = `http://127.0.0.1:${server.port}/api/settings/memory`;
    for (const [url, pattern] of [
      [own, /loading http:\/\/127\.0\.0\.1:\d+\/api\/settings\/memory was refused: 127\.0\.0\.1 is this machine \(a loopback address\)/],
      [`http://localhost:${server.port}/api/agents`, /was refused: localhost is this machine/],
      [`http://[::1]:${server.port}/api/agents`, /was refused: ::1 is this machine/],
      ['http://169.254.169.254/latest/meta-data/', /was refused: 169\.254\.169\.254 is a link-local or cloud-metadata address/],
      ['http://[::ffff:169.254.169.254]/', /link-local or cloud-metadata address/],
      ['http://metadata.google.internal/', /link-local or cloud-metadata address/],
    ] as Array<[string, RegExp]>) {
      const res = await callTool(owner, 'svc_browser', { url });
      assert.equal(res.isError, true, url);
      assert.match(res.text, pattern, url);
    }
    // A page may redirect there: the browser's proxy refuses the connection as it is made.
    const before = site.requests.length;
    const redirected = await callTool(owner, 'svc_browser', { url: `${site.url}/redirect?to=${encodeURIComponent(own)}` });
    assert.equal(redirected.isError, true);
    assert.match(redirected.text, /was refused: 127\.0\.0\.1 is this machine/);
    assert.deepEqual(site.requests.slice(before), ['/redirect'], 'the redirect was followed to the proxy, no further');
    // A name that resolves to loopback is refused as it resolves (the browser resolves no name itself).
    const name = hostname();
    const address = await lookup(name).then((a) => a.address, () => '');
    if (address.startsWith('127.')) {
      const byName = await callTool(owner, 'svc_browser', { url: `http://${name}:${server.port}/api/agents` });
      assert.match(byName.text, new RegExp(`was refused: ${name} \\(127\\.[\\d.]+\\) is this machine`));
    }
  });

  it('svc_browser and svc_deep_research of another tenant reach public addresses only', async () => {
    const tenant = await registerTenant(server, 'research-tenant');
    const agent = await createAgent(server, tenant.operator, { name: 'tenant-researcher', model: 'claude-sonnet-5-5' });
    const client = await mcpClient(server, await agentToken(server, tenant.operator, agent.id));
    try {
      const before = site.requests.length;
      for (const url of [`${site.url}/roosts`, `http://localhost:${site.url.split(':').at(-1)}/owls`, 'http://10.1.2.3/', 'http://192.168.0.1/', 'http://[fd00::1]/', 'http://169.254.169.254/']) {
        const res = await callTool(client, 'svc_browser', { url });
        assert.equal(res.isError, true, url);
        assert.match(res.text, /was refused: .* is a loopback, private, link-local or reserved address; only public addresses may be reached from here/, url);
      }
      const research = await callTool(client, 'svc_deep_research', { question: 'which birds roost in towns?' });
      assert.equal(research.isError, false, research.text);
      assert.ok(research.value.sources.length > 0);
      for (const source of research.value.sources) {
        assert.equal(source.read, false, source.url);
        assert.match(source.error, /was refused: 127\.0\.0\.1 is a loopback, private/);
      }
      assert.deepEqual(site.requests.slice(before), [], 'the site saw no request from the tenant\'s calls');
    } finally {
      await client.close();
    }
  });

  it('svc_deep_research searches, reads the top pages and has the calling agent summarise them', async () => {
    const agent = await createAgent(server, undefined, { name: 'researcher', model: 'claude-sonnet-5-5' });
    const client = await mcpClient(server, await agentToken(server, undefined, agent.id));
    try {
      const res = await callTool(client, 'svc_deep_research', { question: 'where do animals roost?' });
      assert.equal(res.isError, false, res.text);
      assert.equal(res.value.summary, 'Birds, owls and bats all roost [1][2].');
      assert.deepEqual(res.value.sources.map((s: any) => [s.title, s.read]), [['About roosts', true], ['Broken', false], ['Owls', true], ['Bats', true]]);
      assert.equal(res.value.sources[1].error, 'the page answered 404');
      // The summary was written by the agent's model, from the pages' text.
      const asked = anthropic.requests.find((r) => JSON.stringify(r.body.messages).includes('where do animals roost?'))!;
      const prompt = JSON.stringify(asked.body.messages);
      assert.match(prompt, /Birds sleep in roosts at night/);
      assert.match(prompt, /Owls roost in hollow trees/);
      assert.match(prompt, /the page could not be read; the search snippet:\) A roost page that is gone/);
      const session = (await server.api('GET', `/api/sessions/${res.value.sessionId}`)).body;
      assert.equal(session.agentId, agent.id);
      assert.match(session.name, /^Research summary: where do animals roost\?/);
      await waitFor('the summary session to stop', async () => ((await server.api('GET', `/api/sessions/${res.value.sessionId}`)).body.status === 'stopped' ? true : undefined));
    } finally {
      await client.close();
    }
  });

  it('svc_deep_research needs an agent, and a question the search finds', async () => {
    const byKey = await callTool(owner, 'svc_deep_research', { question: 'where do animals roost?' });
    assert.equal(byKey.isError, true);
    assert.match(byKey.text, /call it from an agent's session/);
    const agent = await createAgent(server, undefined, { name: 'researcher-2', model: 'claude-sonnet-5-5' });
    const client = await mcpClient(server, await agentToken(server, undefined, agent.id));
    try {
      const nothing = await callTool(client, 'svc_deep_research', { question: 'nothing matches' });
      assert.equal(nothing.isError, true);
      assert.match(nothing.text, /the search found nothing/);
      for (const args of [{}, { question: 'x', depth: 4 }, { question: 'x', depth: 0 }]) assert.equal((await callTool(client, 'svc_deep_research', args)).isError, true);
    } finally {
      await client.close();
    }
  });
});
