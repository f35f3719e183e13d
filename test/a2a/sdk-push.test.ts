// Push notifications from the official A2A SDK, both majors, as clients of Roost: the config methods
// round-trip (1.x over JSON-RPC and HTTP+JSON, 0.3 over JSON-RPC), and a task's updates reach a receiver
// on loopback (allowed here by ROOST_EXT_A2A_ALLOW_LOOPBACK=1, for the instance's own tenant only) with
// the config's token and authentication, tried again after a refusal. Another tenant reaches neither the
// task nor loopback.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { registerTenant, type Tenant } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { namedAgent, startMessagingServer, type MessagingServer } from '../messaging/support.js';

interface Delivery {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A webhook receiver on loopback: records what comes; /flaky refuses its first delivery with 503. */
async function startReceiver(): Promise<{ url: string; got: Delivery[]; close(): Promise<void> }> {
  const got: Delivery[] = [];
  let refused = false;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/flaky' && !refused) {
        refused = true;
        res.writeHead(503).end();
        return;
      }
      got.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const sendV1 = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, metadata: { agent: 'oracle' }, configuration: { returnImmediately: true } });

describe('a2a: push notifications from the A2A SDKs, 1.x and 0.3', () => {
  let h: MessagingServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let other: Tenant;

  before(async () => {
    receiver = await startReceiver();
    h = await startMessagingServer({ slowMs: 1_000, env: { ROOST_EXT_A2A_ALLOW_LOOPBACK: '1' } });
    await namedAgent(h.server, undefined, 'oracle');
    other = await registerTenant(h.server, 'a2a-push-other');
    await namedAgent(h.server, other.owner, 'helper');
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('SDK 1.x over JSON-RPC: a config round-trips, and the task\'s updates reach the receiver with its token and credentials', async () => {
    const client = await new ClientFactory().createFromUrl(h.server.url);
    const task = await client.sendMessage(sendV1('SLOW push to me'));
    assert.ok('status' in task);
    const config = { tenant: '', taskId: task.id, id: 'hook', url: `${receiver.url}/v1-hook`, token: 'tok-v1', authentication: { scheme: 'Bearer', credentials: 'cred-v1' } };
    const made = await client.createTaskPushNotificationConfig(config);
    assert.equal(made.id, 'hook');
    assert.equal(made.url, `${receiver.url}/v1-hook`);
    const read = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook' });
    assert.equal(read.token, 'tok-v1');
    assert.equal(read.authentication?.scheme, 'Bearer');
    assert.equal(read.authentication?.credentials, '', 'credentials are never answered back');
    assert.deepEqual((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).configs.map((c) => c.id), ['hook']);

    const completed = await waitFor('the completed task at the receiver', async () =>
      receiver.got.find((d) => d.path === '/v1-hook' && d.body.task?.status?.state === 'TASK_STATE_COMPLETED'), 20_000);
    assert.equal(completed.headers['x-a2a-notification-token'], 'tok-v1');
    assert.equal(completed.headers.authorization, 'Bearer cred-v1');
    assert.equal(completed.body.task.id, task.id);
    assert.deepEqual(completed.body.task.artifacts[0].parts, [{ text: 'oracle heard: SLOW push to me' }]);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook' });
    assert.deepEqual((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).configs, []);
  });

  it('SDK 1.x over HTTP+JSON: create, get, list and delete', async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }));
    const client = await factory.createFromUrl(h.server.url);
    const task = await client.sendMessage(sendV1('rest push'));
    assert.ok('status' in task);
    const made = await client.createTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: '', url: `${receiver.url}/rest-hook`, token: '', authentication: undefined });
    assert.ok(made.id, 'an id is given');
    assert.equal((await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: made.id })).url, `${receiver.url}/rest-hook`);
    assert.equal((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).configs.length, 1);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: made.id });
    await assert.rejects(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: made.id }), /no push notification config/);
    // A config given with the message itself.
    const inline = await client.sendMessage(SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'inline push' }] }, metadata: { agent: 'oracle' },
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/inline`, token: 'tok-inline' } },
    }));
    assert.ok('status' in inline);
    const pushed = await waitFor('the inline config\'s delivery', async () => receiver.got.find((d) => d.path === '/inline' && d.body.task?.status?.state === 'TASK_STATE_COMPLETED'), 20_000);
    assert.equal(pushed.body.task.id, inline.id);
    assert.equal(pushed.headers['x-a2a-notification-token'], 'tok-inline');
  });

  it('SDK 0.3: set, get, list, delete; the completed task is delivered after the receiver refused once', async () => {
    const client = await new ClientFactoryV03().createFromUrl(h.server.url);
    const message = { kind: 'message' as const, role: 'user' as const, messageId: randomUUID(), parts: [{ kind: 'text' as const, text: 'SLOW 0.3 push' }] };
    const task = (await client.sendMessage({ message, metadata: { agent: 'oracle' }, configuration: { blocking: false } })) as { id: string };
    const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'flaky', url: `${receiver.url}/flaky`, token: 'tok-03' } });
    assert.equal(set.pushNotificationConfig.id, 'flaky');
    assert.equal((await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'flaky' })).pushNotificationConfig.url, `${receiver.url}/flaky`);
    assert.equal((await client.listTaskPushNotificationConfig({ id: task.id })).length, 1);

    const completed = await waitFor('the completed 0.3 task at the receiver', async () =>
      receiver.got.find((d) => d.path === '/flaky' && d.body.status?.state === 'completed'), 30_000);
    assert.equal(completed.body.kind, 'task');
    assert.equal(completed.body.id, task.id);
    assert.equal(completed.headers['x-a2a-notification-token'], 'tok-03');
    // The first update (working) was refused with 503 and came again: delivered before the completed one.
    const states = receiver.got.filter((d) => d.path === '/flaky').map((d) => d.body.status.state);
    assert.deepEqual(states, ['working', 'completed']);
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'flaky' });
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), []);
  });

  it('another tenant reaches neither the task nor loopback; a URL must be http(s)', async () => {
    const mine = await new ClientFactory().createFromUrl(h.server.url);
    const task = await mine.sendMessage(sendV1('not yours'));
    assert.ok('status' in task);
    const rpc = async (key: string | undefined, method: string, params: unknown) =>
      (await h.server.api('POST', '/a2a', { key, raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } })).body;
    const hook = { url: `${receiver.url}/theirs` };
    assert.equal((await rpc(other.owner, 'CreateTaskPushNotificationConfig', { taskId: task.id, ...hook })).error.code, -32001);
    assert.equal((await rpc(other.owner, 'ListTaskPushNotificationConfigs', { taskId: task.id })).error.code, -32001);
    const theirs = await rpc(other.owner, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'mine' }] }, configuration: { returnImmediately: true } });
    const refused = await rpc(other.owner, 'CreateTaskPushNotificationConfig', { taskId: theirs.result.task.id, ...hook });
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /127\.0\.0\.1/);
    assert.equal((await rpc(undefined, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: 'ftp://127.0.0.1/x' })).error.code, -32602);
    // A config given with a message is checked before the task starts: no task is left behind.
    const before = (await rpc(other.owner, 'ListTasks', {})).result.totalSize;
    const inline = await rpc(other.owner, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] }, configuration: { taskPushNotificationConfig: hook } });
    assert.equal(inline.error.code, -32602);
    assert.equal((await rpc(other.owner, 'ListTasks', {})).result.totalSize, before);
  });
});
