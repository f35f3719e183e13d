// Without a search API key or a Chromium, the research tools say exactly what to set or install.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callTool, createAgent, FIXTURES, mcpClient } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('research tools without their configuration', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_CHROMIUM_PATH: '/nonexistent/chromium' } });
    client = await mcpClient(server);
  });
  after(async () => {
    await client?.close();
    await server.cleanup();
  });

  it('svc_web_search names the variable to set', async () => {
    const res = await callTool(client, 'svc_web_search', { query: 'anything' });
    assert.equal(res.isError, true);
    assert.match(res.text, /web search is not configured: set ROOST_SEARCH_API_KEY to a Brave Search API subscription token/);
  });

  it('svc_browser names the package to install and the variable to set', async () => {
    const res = await callTool(client, 'svc_browser', { url: 'http://192.0.2.1/' });
    assert.equal(res.isError, true);
    assert.match(res.text, /there is none at \/nonexistent\/chromium: install it \(Debian: apt-get install chromium\) or set ROOST_CHROMIUM_PATH/);
  });

  it('svc_browser refuses loopback even to the instance owner while ROOST_EXT_RESEARCH_ALLOW_LOOPBACK is not set', async () => {
    for (const url of ['http://127.0.0.1:8080/', `http://127.0.0.1:${server.port}/api/agents`, 'http://localhost/', 'http://[::]/']) {
      const res = await callTool(client, 'svc_browser', { url });
      assert.equal(res.isError, true, url);
      assert.match(res.text, /was refused: .* is this machine \(a loopback address\), which may not be reached from here/, url);
    }
  });

  it('svc_deep_research, asked by an agent, names the variable to set', async () => {
    const agent = await createAgent(server, undefined, { name: 'unconfigured-researcher', model: 'claude-sonnet-5-5' });
    const asAgent = await mcpClient(server, await agentToken(server, undefined, agent.id));
    try {
      const res = await callTool(asAgent, 'svc_deep_research', { question: 'anything' });
      assert.equal(res.isError, true);
      assert.match(res.text, /set ROOST_SEARCH_API_KEY/);
    } finally {
      await asAgent.close();
    }
  });
});
