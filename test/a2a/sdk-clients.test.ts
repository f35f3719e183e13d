// The official A2A SDK, both majors, as a client of Roost, driven from the packages themselves:
// @a2a-js/sdk 1.x (A2A 1.0: SendMessage, GetTask, CancelTask over JSON-RPC and HTTP+JSON, picked from
// the card's supportedInterfaces) and @a2a-js/sdk 0.3 (A2A 0.3: message/send … over the JSON-RPC url of
// the same card). Both are served at once, from the same card and endpoint. The SDKs call as the
// instance owner (a loopback caller without a key).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CancelTaskRequest, GetTaskRequest, SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { waitFor } from '../helpers/wait.js';
import { namedAgent, startMessagingServer, type MessagingServer } from '../messaging/support.js';

/** A 1.0 SendMessage request, built by the SDK from 1.0's JSON. */
const sendV1 = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, ...extra });
const textOf = (parts: Array<{ content?: { $case: string; value: unknown } }> | undefined) => parts?.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

describe('a2a: the A2A SDKs as clients, 1.x and 0.3', () => {
  let h: MessagingServer;
  let scribe: { id: string; name: string };

  before(async () => {
    h = await startMessagingServer({ slowMs: 60_000 });
    await namedAgent(h.server, undefined, 'oracle');
    scribe = await namedAgent(h.server, undefined, 'scribe');
  });
  after(() => h?.close());

  it('SDK 1.x: createFromUrl picks A2A 1.0 JSON-RPC from the card; SendMessage waits for the answer, GetTask reads it', async () => {
    const client = await new ClientFactory().createFromUrl(h.server.url);
    const task = await client.sendMessage(sendV1('what is A2A?', { metadata: { agent: 'oracle' } }));
    assert.ok('status' in task, 'a task');
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(textOf(task.artifacts[0]?.parts), 'oracle heard: what is A2A?');
    assert.equal(textOf(task.history[0]?.parts), 'what is A2A?');
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 1 }));
    assert.equal(got.id, task.id);
    assert.equal(got.contextId, task.contextId);
    assert.equal(got.history.length, 1);
    // A message naming the task's context goes on with the same conversation.
    const next = await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', contextId: task.contextId, parts: [{ text: 'and then?' }] }, metadata: { agent: 'oracle' } }));
    assert.ok('status' in next);
    assert.equal(next.contextId, task.contextId);
    assert.equal((next.metadata as { sessionId?: string }).sessionId, (task.metadata as { sessionId?: string }).sessionId);
  });

  it('SDK 1.x: an agent\'s own card, over HTTP+JSON; returnImmediately, then CancelTask', async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }));
    const client = await factory.createFromUrl(h.server.url, `/api/agents/${scribe.id}/agent-card`);
    const done = await client.sendMessage(sendV1('hello scribe'));
    assert.ok('status' in done);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(textOf(done.artifacts[0]?.parts), 'scribe heard: hello scribe');
    const slow = await client.sendMessage(sendV1('SLOW down', { configuration: { returnImmediately: true } }));
    assert.ok('status' in slow);
    assert.ok([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(slow.status!.state));
    await waitFor('the slow task to work', async () => (await client.getTask(GetTaskRequest.fromJSON({ id: slow.id }))).status?.state === TaskState.TASK_STATE_WORKING || undefined);
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: slow.id }));
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    // The binding's errors are the SDK's errors: a task that ended is not cancelable, an unknown one not found.
    await assert.rejects(client.cancelTask(CancelTaskRequest.fromJSON({ id: slow.id })), /is canceled/);
    await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })), /Task not found|no-such-task/);
  });

  it('SDK 0.3: createFromUrl takes the same card\'s 0.3 JSON-RPC url; message/send, tasks/get, tasks/cancel in 0.3\'s shapes', async () => {
    const client = await new ClientFactoryV03().createFromUrl(h.server.url);
    const message = (text: string) => ({ kind: 'message' as const, role: 'user' as const, messageId: randomUUID(), parts: [{ kind: 'text' as const, text }] });
    const sent = await client.sendMessage({ message: message('hello from 0.3'), metadata: { agent: 'oracle' }, configuration: { blocking: true } });
    assert.equal(sent.kind, 'task');
    if (sent.kind !== 'task') return;
    assert.equal(sent.status.state, 'completed');
    assert.deepEqual(sent.artifacts?.[0]?.parts, [{ kind: 'text', text: 'oracle heard: hello from 0.3' }]);
    assert.equal((await client.getTask({ id: sent.id })).status.state, 'completed');
    const slow = await client.sendMessage({ message: message('SLOW please'), metadata: { agent: 'oracle' }, configuration: { blocking: false } });
    assert.equal(slow.kind, 'task');
    const canceled = await client.cancelTask({ id: (slow as { id: string }).id });
    assert.equal(canceled.status.state, 'canceled');
  });

  it('negotiation: one endpoint, the method names tell the versions apart; an unknown A2A-Version is -32009', async () => {
    const call = async (method: string, params: unknown, headers: Record<string, string> = {}) =>
      (await h.server.api('POST', '/a2a', { raw: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), headers: { 'content-type': 'application/json', ...headers } })).body;
    const v1 = await call('SendMessage', { message: { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'raw 1.0' }] }, metadata: { agent: 'oracle' } }, { 'a2a-version': '1.0' });
    assert.equal(v1.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(v1));
    assert.deepEqual(v1.result.task.status.message.parts, [{ text: 'oracle heard: raw 1.0' }]);
    assert.equal(v1.result.task.status.message.role, 'ROLE_AGENT');
    assert.equal(v1.result.task.kind, undefined);
    // The same task read in 0.3's shape.
    const v03 = await call('tasks/get', { id: v1.result.task.id });
    assert.equal(v03.result.kind, 'task');
    assert.equal(v03.result.status.state, 'completed');
    assert.equal((await call('GetTask', { id: v1.result.task.id }, { 'a2a-version': '2.0' })).error.code, -32009);
    assert.equal((await call('SendMessage', { message: { messageId: 'n2', role: 'ROLE_USER', parts: [{ url: 'http://192.0.2.1/x.png' }] }, metadata: { agent: 'oracle' } })).error.code, -32005);
    assert.equal((await call('SendStreamingMessage', {})).error.code, -32602);
    assert.equal((await call('GetExtendedAgentCard', {})).error.code, -32007);
    assert.equal((await call('NoSuchMethod', {})).error.code, -32601);
    // The HTTP+JSON binding answers its errors as google.rpc.Status.
    const missing = await h.server.api('GET', '/a2a/v1/tasks/no-such-task');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.status, 'NOT_FOUND');
    assert.equal(missing.body.error.details[0].reason, 'TASK_NOT_FOUND');
  });
});
