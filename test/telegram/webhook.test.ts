import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callAs, createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configureBot, sentTo, startFakes, type Fakes } from './support.js';

const CHAT = 5151;

describe('the Telegram bridge over its webhook', () => {
  let fakes: Fakes;
  let server: TestServer;
  let a: Tenant;
  let agent: any;
  let hookPath: string;

  before(async () => {
    fakes = await startFakes('Webhook reply.');
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'tg-hook');
    agent = await createAgent(server, a.owner, { name: 'hooked', model: 'claude-sonnet-5-5' });
    hookPath = `/webhooks/telegram/${a.tenantId}`;
    const saved = await configureBot(server, a.owner, { botToken: fakes.telegram.token, mode: 'webhook', apiRoot: fakes.telegram.url, webhookUrl: `${server.url}${hookPath}`, defaultAgentId: agent.id });
    assert.equal(saved.mode, 'webhook');
    assert.deepEqual(saved.secretKeys, ['botToken', 'webhookSecret']);
  });
  after(async () => {
    await server?.cleanup();
    await fakes?.close();
  });

  it('registers the webhook with a secret token and serves a conversation through it', async () => {
    assert.equal(fakes.telegram.webhook?.url, `${server.url}${hookPath}`);
    assert.match(fakes.telegram.webhook?.secret ?? '', /^[0-9a-f]{64}$/);
    const from = fakes.telegram.sent.length;
    assert.equal(await fakes.telegram.push(fakes.telegram.message(CHAT, 'hi over the webhook')), 200);
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Webhook reply.', from, 30_000);
  });

  it('refuses a missing or wrong secret token, an unknown tenant and a malformed update', async () => {
    const update = { update_id: 900_001, ...fakes.telegram.message(CHAT, '/help') };
    const post = (path: string, headers: Record<string, string>, body: unknown = update) => server.api('POST', path, { headers, body });
    const missing = await post(hookPath, {});
    assert.equal(missing.status, 401);
    assert.match(missing.body.error, /X-Telegram-Bot-Api-Secret-Token/);
    const wrong = await post(hookPath, { 'x-telegram-bot-api-secret-token': 'f'.repeat(64) });
    assert.equal(wrong.status, 401);
    const short = await post(hookPath, { 'x-telegram-bot-api-secret-token': 'x' });
    assert.equal(short.status, 401);
    const secret = fakes.telegram.webhook!.secret!;
    assert.equal((await post('/webhooks/telegram/no-such-tenant', { 'x-telegram-bot-api-secret-token': secret })).status, 404);
    const malformed = await post(hookPath, { 'x-telegram-bot-api-secret-token': secret }, { update_id: 'one' });
    assert.equal(malformed.status, 400);
    const deep = await server.api('POST', hookPath, { headers: { 'x-telegram-bot-api-secret-token': secret, 'content-type': 'application/json' }, raw: `${'['.repeat(5000)}${']'.repeat(5000)}` });
    assert.equal(deep.status, 400);
    // None of the refused posts reached the bot.
    assert.equal(fakes.telegram.sent.filter((m) => /\/help: this list/.test(m.text)).length, 0);
  });

  it('ignores Telegram redelivering the same update', async () => {
    const from = fakes.telegram.sent.length;
    const update = { update_id: 900_100, ...fakes.telegram.message(CHAT, '/help') };
    assert.equal(await fakes.telegram.push(update), 200);
    assert.equal(await fakes.telegram.push(update), 200);
    await sentTo(fakes.telegram, CHAT, (m) => /\/help: this list/.test(m.text), from);
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/agent'));
    await sentTo(fakes.telegram, CHAT, (m) => /^Agents: /.test(m.text), from);
    assert.equal(fakes.telegram.sent.slice(from).filter((m) => /\/help: this list/.test(m.text)).length, 1);
  });

  it('keeps chat mappings and the webhook across a restart', async () => {
    const before = (await callAs(server, a.owner, 'GET', '/api/internal/bridges/telegram/conversations')).body.conversations;
    await server.stop();
    server = await startTestServer({ env: fakes.env, dataDir: server.dataDir });
    // Telegram keeps posting to the same URL: the port changed, so point the fake at the new one.
    fakes.telegram.webhook = { url: `${server.url}${hookPath}`, secret: fakes.telegram.webhook!.secret! };
    const afterRestart = (await callAs(server, a.owner, 'GET', '/api/internal/bridges/telegram/conversations')).body.conversations;
    assert.deepEqual(afterRestart, before);
    const from = fakes.telegram.sent.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/status'));
    await sentTo(fakes.telegram, CHAT, (m) => new RegExp(`Session: ${before[0].sessionId}`).test(m.text), from);
    const duplicateOfOld = await fakes.telegram.push({ update_id: 900_100, ...fakes.telegram.message(CHAT, '/help') });
    assert.equal(duplicateOfOld, 200);
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/agent'));
    await sentTo(fakes.telegram, CHAT, (m) => /^Agents: /.test(m.text), from);
    assert.equal(fakes.telegram.sent.slice(from).filter((m) => /\/help: this list/.test(m.text)).length, 0, 'an update seen before the restart is still a duplicate');
  });
});
