import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callTool, createAgent, mcpClient, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { NOTIFY_ENV, startWorld, stopWorld, type WebhookReceiver } from './support.js';

describe('notification channels and owner notifications', () => {
  let server: TestServer;
  let hook: WebhookReceiver;
  let a: Tenant;
  let b: Tenant;
  let mcp: Client;
  let agentId: string;

  before(async () => {
    ({ server, hook, a, b, agentId, mcp } = await startWorld('notify'));
  });
  after(() => stopWorld({ server, hook, mcp }));

  it('stores a channel with its secrets sealed, shows only their names, and is owner-only to change', async () => {
    const res = await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'webhook', name: 'pager', config: { url: hook.url, team: 'ops' }, secrets: { token: 's3cret-token', signing: 'n0t-for-the-body' } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.secretKeys, ['token', 'signing']);
    assert.equal(res.text.includes('s3cret-token'), false);
    assert.equal((await server.api('GET', '/api/notification-channels', { key: a.viewer })).status, 403);
    assert.equal((await server.api('GET', `/api/notification-channels/${res.body.id}`, { key: a.operator })).status, 403);
    const list = await server.api('GET', '/api/notification-channels', { key: a.owner });
    assert.equal(list.status, 200);
    assert.equal(list.body.channels.length, 1);
    assert.equal(list.text.includes('s3cret-token'), false);
    assert.equal((await server.api('POST', '/api/notification-channels', { key: a.operator, body: { type: 'webhook', config: { url: hook.url } } })).status, 403);
    assert.equal((await server.api('DELETE', `/api/notification-channels/${res.body.id}`, { key: a.viewer })).status, 403);
    const renamed = await server.api('PUT', `/api/notification-channels/${res.body.id}`, { key: a.owner, body: { name: 'pager-2' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.body.secretKeys, ['token', 'signing'], 'secrets left out of an update are kept');
    // Another tenant's id answers exactly like an unknown one.
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      const other = await server.api(method, `/api/notification-channels/${res.body.id}`, { key: b.owner, body });
      assert.equal(other.status, 404, `${method}: ${other.text}`);
      assert.equal(other.body.code, 'NOT_FOUND');
    }
    const foreignAgent = await server.api('POST', '/api/notification-channels', { key: b.owner, body: { type: 'webhook', config: { url: hook.url }, agentId } });
    assert.equal(foreignAgent.status, 400);
    assert.match(foreignAgent.body.error, /not found/);
  });

  it('refuses bad channel input with a clear error and stores nothing', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ type: 'webhook', config: {} }, /config\.url/],
      [{ type: 'webhook', config: { url: 'ftp://example.com' } }, /http or https/],
      [{ type: 'Not A Type!', config: {} }, /body\.type/],
      [{ type: 'telegram', config: { chatId: '' } }, /config\.chatId/],
      [{ type: 'webhook', config: { url: { nested: { deep: true } } } }, /body\.config\.url/],
      [{ type: 'webhook', config: { url: hook.url }, secrets: { token: 'x'.repeat(5000) } }, /body\.secrets\.token/],
      [{ type: 'webhook', config: { url: hook.url }, extra: 1 }, /body\.extra is not allowed/],
      [{ type: 'webhook', config: { url: hook.url }, agentId: 'no-such-agent' }, /agent no-such-agent not found/],
    ];
    for (const [body, message] of bad) {
      const res = await server.api('POST', '/api/notification-channels', { key: a.owner, body });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, message);
    }
    const malformed = await server.api('POST', '/api/notification-channels', { key: a.owner, raw: '{"type": "webhook",', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    const oversized = await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'webhook', name: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(oversized.status, 413);
    const unauthorised = await server.api('POST', '/api/notification-channels', { key: 'roost_not_a_key', body: { type: 'webhook', config: { url: hook.url } } });
    assert.ok([401, 403].includes(unauthorised.status), unauthorised.text);
    const foreign = await server.api('POST', '/api/notification-channels', { key: a.owner, headers: { origin: 'https://evil.example' }, body: { type: 'webhook', config: { url: hook.url } } });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal((await server.api('GET', '/api/notification-channels', { key: a.owner })).body.channels.length, 1);
  });

  it('svc_notify_owner retries a failing webhook with backoff until it is delivered, and records every delivery', async () => {
    hook.failNext(2);
    const before = hook.received.length;
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'build is red', priority: 'high' });
    assert.equal(sent.isError, false, sent.text);
    assert.equal(sent.value.deliveries.length, 1);
    const id = sent.value.notificationId;
    const delivered = await waitFor('the retried delivery', async () => {
      const res = await server.api('GET', `/api/notifications/${id}/deliveries`, { key: a.owner });
      const d = res.body.deliveries[0];
      return d.status === 'delivered' ? d : undefined;
    }, 30_000);
    assert.equal(delivered.attempts, 3);
    const got = hook.received.slice(before).find((r) => r.body.notificationId === id)!;
    assert.equal(got.body.kind, 'notification');
    assert.equal(got.body.text, 'build is red');
    assert.equal(got.body.priority, 'high');
    assert.equal(got.headers['x-roost-token'], 's3cret-token');
    // Secrets go only in the header: the body carries the config, and no secret at all.
    assert.deepEqual(got.body.channel, { team: 'ops', type: 'webhook' });
    assert.equal(JSON.stringify(got.body).includes('s3cret-token'), false);
    assert.equal(JSON.stringify(got.body).includes('n0t-for-the-body'), false);
    const list = await server.api('GET', '/api/notifications', { key: a.owner });
    assert.equal(list.body.notifications[0].id, id);
    assert.equal((await server.api('GET', `/api/notifications/${id}/deliveries`, { key: b.owner })).status, 404);
    assert.equal((await server.api('GET', `/api/notifications/${id}`, { key: b.owner })).status, 404);
  });

  it('a channel whose bridge extension is missing fails with the reason, while the others deliver', async () => {
    // No list of bridges is kept: a type is the name of the extension that delivers it, and no loaded one is "pigeon".
    const { body: channel } = await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'pigeon', config: { loft: 'roof' } } });
    assert.equal(channel.type, 'pigeon');
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'two channels', channels: ['pager-2', 'pigeon'] });
    assert.equal(sent.isError, false, sent.text);
    const failing = await waitFor('the failing delivery to have tried', async () => {
      const { body } = await server.api('GET', `/api/notifications/${sent.value.notificationId}/deliveries`, { key: a.owner });
      const d = body.deliveries.find((x: any) => x.channelId === channel.id);
      return d.attempts >= 1 && body.deliveries.some((x: any) => x.channelType === 'webhook' && x.status === 'delivered') ? d : undefined;
    });
    assert.match(failing.lastError, /the pigeon bridge extension is not loaded/);
    assert.equal((await server.api('DELETE', `/api/notification-channels/${channel.id}`, { key: a.owner })).status, 204);
  });

  it('svc_configure_notifications views and replaces the agent\'s own channels, refusing bad input', async () => {
    const view = await callTool(mcp, 'svc_configure_notifications', { action: 'view' });
    assert.equal(view.isError, false, view.text);
    assert.deepEqual(view.value.channels.map((c: any) => c.scope), ['tenant']);
    // The tenant's channel is the owner's: the agent sees what it is, not where it points.
    assert.equal(view.value.channels[0].config, undefined);
    assert.deepEqual(view.value.channels[0].configKeys, ['url', 'team']);
    assert.equal(view.text.includes(hook.url), false);
    const update = await callTool(mcp, 'svc_configure_notifications', { action: 'update', channels: [{ type: 'webhook', name: 'mine', config: { url: hook.url }, secrets: { token: 'agent-token' } }] });
    assert.equal(update.isError, false, update.text);
    const mine = update.value.channels.find((c: any) => c.scope === 'agent');
    assert.equal(mine.name, 'mine');
    assert.deepEqual(mine.secretKeys, ['token']);
    assert.equal(update.text.includes('agent-token'), false);
    const bad = await callTool(mcp, 'svc_configure_notifications', { action: 'update', channels: [{ type: 'webhook', config: {} }] });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /config\.url/);
    const foreign = await callTool(mcp, 'svc_configure_notifications', { action: 'update', channels: [{ id: view.value.channels[0].id, name: 'steal' }] });
    assert.equal(foreign.isError, true);
    assert.match(foreign.text, /not one of this agent's own channels/);
    const cleared = await callTool(mcp, 'svc_configure_notifications', { action: 'update', channels: [] });
    assert.deepEqual(cleared.value.channels.map((c: any) => c.scope), ['tenant']);
    const wrong = await callTool(mcp, 'svc_configure_notifications', { action: 'delete' });
    assert.equal(wrong.isError, true);
    const badNotify = await callTool(mcp, 'svc_notify_owner', { message: 'x', priority: 'meh' });
    assert.equal(badNotify.isError, true);
    assert.match(badNotify.text, /priority/);
    const unknownChannel = await callTool(mcp, 'svc_notify_owner', { message: 'x', channels: ['nope'] });
    assert.equal(unknownChannel.isError, true);
    assert.match(unknownChannel.text, /no enabled notification channel matches "nope"/);
  });
  it('a pending retry survives a restart: the extension starts with the server and delivers it', async () => {
    hook.failNext(1_000);
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'across the restart' });
    assert.equal(sent.isError, false, sent.text);
    // Failed and retrying: back to pending, or already taken again by the outbox's timer (200 ms base).
    assert.ok(['pending', 'sending'].includes(sent.value.deliveries[0].status), sent.text);
    await mcp.close();
    await server.stop();
    hook.failNext(0);
    server = await startTestServer({ env: NOTIFY_ENV, dataDir: server.dataDir });
    // Nothing asks the notifications extension anything: it was started because it holds pending work.
    const got = await waitFor('the delivery after the restart', async () => hook.received.find((r) => r.body.notificationId === sent.value.notificationId), 30_000);
    assert.equal(got.body.text, 'across the restart');
    const { body } = await server.api('GET', `/api/notifications/${sent.value.notificationId}/deliveries`, { key: a.owner });
    assert.equal(body.deliveries[0].status, 'delivered');
    mcp = await mcpClient(server, await agentToken(server, a.owner, agentId));
  });

  it('a tenant\'s webhook reaches no loopback or private address unless the settings allow it', async () => {
    await mcp.close();
    await server.stop();
    const { ROOST_EXT_NOTIFICATIONS_ALLOW_PRIVATE_URLS: _all, ROOST_EXT_NOTIFICATIONS_ALLOW_LOOPBACK: _loopback, ...defaults } = NOTIFY_ENV;
    server = await startTestServer({ env: defaults, dataDir: server.dataDir });
    mcp = await mcpClient(server, await agentToken(server, a.owner, agentId));
    const before = hook.received.length;
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'to a private address' });
    assert.equal(sent.isError, false, sent.text);
    const refused = await waitFor('the refused delivery', async () => {
      const { body } = await server.api('GET', `/api/notifications/${sent.value.notificationId}/deliveries`, { key: a.owner });
      return body.deliveries[0].attempts >= 1 ? body.deliveries[0] : undefined;
    });
    assert.notEqual(refused.status, 'delivered');
    assert.match(refused.lastError, /127\.0\.0\.1 is a loopback, private, link-local or reserved address/);
    assert.equal(hook.received.length, before, 'nothing reached the receiver');
    // An agent's own webhook is held to public addresses by default, even an agent of the instance's own
    // tenant (whose owner may name private ones).
    const instanceAgent = await createAgent(server, undefined, { name: 'instance-agent', model: 'claude-sonnet-5-5' });
    const instanceMcp = await mcpClient(server, await agentToken(server, undefined, instanceAgent.id));
    try {
      const own = await callTool(instanceMcp, 'svc_configure_notifications', { action: 'update', channels: [{ type: 'webhook', config: { url: hook.url } }] });
      assert.equal(own.isError, true);
      assert.match(own.text, /an agent's webhook must be a public address: config\.url: 127\.0\.0\.1 is a loopback/);
    } finally {
      await instanceMcp.close();
    }
  });
});
