// The Telegram bridge's safety: the API root a tenant names is held to the tenant's reach (no
// server-side request forgery, never the server's own port), an answer that is not the Bot API's is a
// 502, /agent during a running turn is not undone when the turn ends, a question dispatch that went out
// after its question closed is closed once, and svc_bridge_request reaches a Telegram chat over MCP.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, createAgent, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../notifications/support.js';
import { configureBot, sentTo, startFakes, type Fakes } from './support.js';

const CHAT = 6161;

describe('telegram: reach of the API root, races with a running turn, late dispatches, MCP requests', () => {
  let fakes: Fakes;
  let server: TestServer;
  let hook: WebhookReceiver;
  let a: Tenant;
  let agent: any;
  let mcp: Client;

  before(async () => {
    fakes = await startFakes('First answer.');
    hook = await startWebhookReceiver();
    // The default rule: only the instance's own tenant may point its bot at a private address.
    const { ROOST_EXT_TELEGRAM_ALLOW_PRIVATE_URLS: _private, ...env } = fakes.env;
    server = await startTestServer({ env });
    a = await registerTenant(server, 'tg-safe');
    agent = await createAgent(server, undefined, { name: 'helper', model: 'claude-sonnet-5-5' });
    await createAgent(server, undefined, { name: 'second', model: 'claude-sonnet-5-5' });
    mcp = await mcpClient(server);
  });
  after(async () => {
    await mcp?.close();
    await server?.cleanup();
    await hook?.close();
    await fakes?.close();
  });

  it('a tenant\'s bot may not point at a loopback, private or metadata address; the instance\'s own never at metadata', async () => {
    const body = { botToken: fakes.telegram.token, mode: 'polling', apiRoot: fakes.telegram.url };
    const calls = fakes.telegram.calls.length;
    for (const apiRoot of [fakes.telegram.url, 'http://10.1.2.3:8081', 'http://169.254.169.254/latest', 'http://[::1]:1']) {
      const res = await server.api('PUT', '/api/bridges/telegram', { key: a.owner, body: { ...body, apiRoot } });
      assert.equal(res.status, 403, `${apiRoot}: ${res.text}`);
      assert.match(res.body.error, /body\.apiRoot: .*(loopback, private|link-local or cloud-metadata)/);
    }
    assert.equal(fakes.telegram.calls.length, calls, 'nothing was sent to a refused address');
    const metadata = await server.api('PUT', '/api/bridges/telegram', { body: { ...body, apiRoot: 'http://169.254.169.254' } });
    assert.equal(metadata.status, 403);
    const own = await configureBot(server, undefined, { ...body, defaultAgentId: agent.id });
    assert.equal(own.apiRoot, fakes.telegram.url);
  });

  it('the API root is never the server\'s own port; an answer that is not the Bot API\'s is a 502, nothing stored', async () => {
    const body = { botToken: fakes.telegram.token, mode: 'polling' };
    const own = await server.api('PUT', '/api/bridges/telegram', { body: { ...body, apiRoot: `http://127.0.0.1:${server.port}` } });
    assert.equal(own.status, 403, own.text);
    assert.match(own.body.error, /body\.apiRoot: .*this machine.*the server's own port is never reached/);
    const answers: Record<string, [number, string]> = {
      'no result': [200, '{"ok":true}'],
      'a result of another shape': [200, '{"ok":true,"result":"me"}'],
      'not JSON': [200, '<html>a proxy page</html>'],
      'a 502 page': [502, '<html>bad gateway</html>'],
    };
    const liar = createServer((req, res) => {
      const [status, text] = answers[decodeURIComponent(req.url!.split('/')[1]!)]!;
      res.writeHead(status, { 'content-type': text.startsWith('{') ? 'application/json' : 'text/html' }).end(text);
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    try {
      for (const answer of Object.keys(answers)) {
        const apiRoot = `http://127.0.0.1:${(liar.address() as AddressInfo).port}/${encodeURIComponent(answer)}`;
        const res = await server.api('PUT', '/api/bridges/telegram', { body: { ...body, apiRoot } });
        assert.equal(res.status, 502, `${answer}: ${res.text}`);
        assert.equal(res.body.code, 'UPSTREAM_ERROR');
        assert.match(res.body.error, /getMe/);
      }
    } finally {
      liar.close();
    }
    assert.equal((await server.api('GET', '/api/bridges/telegram')).body.apiRoot, fakes.telegram.url, 'the bot configured before is kept');
  });

  it('/agent during a running turn is not undone when the turn ends', async () => {
    const from = fakes.telegram.sent.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, 'hello'));
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'First answer.', from, 30_000);
    fakes.anthropic.setScript([{ text: 'Slow answer.', delayMs: 2_000 }]);
    const asked = fakes.anthropic.requests.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, 'take your time'));
    await waitFor('the turn to be running', async () => (fakes.anthropic.requests.length > asked ? true : undefined), 20_000);
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/agent second'));
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Now talking to second.', from);
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Slow answer.', from, 30_000);
    const statusFrom = fakes.telegram.sent.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/status'));
    const status = await sentTo(fakes.telegram, CHAT, (m) => /^Agent: /.test(m.text), statusFrom);
    assert.match(status.text, /^Agent: second/, 'the turn did not put the old agent back');
    assert.match(status.text, /Session: none yet/, 'nor its session');
  });

  it('a question shown after it closed (Telegram was down) is closed once when Telegram is back', async () => {
    assert.equal((await server.api('POST', '/api/notification-channels', { body: { type: 'telegram', config: { chatId: String(CHAT) } } })).status, 201);
    fakes.telegram.down = true;
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Late?', options: ['yes', 'no'], timeout: 2 });
    const question = await waitFor('the question', async () => (await server.api('GET', '/api/owner-questions?status=pending')).body.questions.find((q: any) => q.question === 'Late?'));
    await waitFor('the dispatch held by the bridge', async () => {
      const q = (await server.api('GET', `/api/owner-questions/${question.id}`)).body;
      return q.dispatches.some((d: any) => d.kind === 'question' && /queued/.test(d.lastError ?? '')) ? true : undefined;
    }, 20_000);
    assert.equal((await server.api('POST', `/api/owner-questions/${question.id}/answer`, { body: { answer: 'no' } })).status, 200);
    assert.equal((await asking).value.answer, 'no');
    fakes.telegram.down = false;
    const shown = await sentTo(fakes.telegram, CHAT, (m) => /Late\?/.test(m.text), 0, 30_000);
    await waitFor('the late message closed', async () => fakes.telegram.edits.find((e) => e.message_id === shown.message_id && /Answered: "no"/.test(e.text)), 30_000);
    await waitFor('every dispatch settled', async () => {
      const q = (await server.api('GET', `/api/owner-questions/${question.id}`)).body;
      return q.dispatches.every((d: any) => ['delivered', 'cancelled', 'failed'].includes(d.status)) ? q : undefined;
    }, 30_000);
    assert.equal(fakes.telegram.edits.filter((e) => e.message_id === shown.message_id).length, 1, 'closed once');
  });

  it('svc_bridge_request sends into the Telegram chat over MCP, and lists it with svc_bridge_sessions', async () => {
    fakes.anthropic.setScript(['Listed.']);
    const from = fakes.telegram.sent.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, 'start again'));
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Listed.', from, 30_000);
    const listed = await callTool(mcp, 'svc_bridge_sessions', { bridge: 'telegram' });
    assert.equal(listed.isError, false, listed.text);
    const chat = listed.value.conversations.find((c: any) => c.conversationId === String(CHAT));
    assert.ok(chat?.sessionId);
    const sent = await callTool(mcp, 'svc_bridge_request', { bridge: 'telegram', conversation_id: String(CHAT), message: 'A word over MCP' });
    assert.equal(sent.isError, false, sent.text);
    assert.equal(sent.value.status, 'sent');
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'A word over MCP', from);
    const foreign = await mcpClient(server, a.operator);
    try {
      const refused = await callTool(foreign, 'svc_bridge_request', { bridge: 'telegram', conversation_id: String(CHAT), message: 'x' });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /not found/);
    } finally {
      await foreign.close();
    }
  });
});
