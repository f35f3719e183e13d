// Streams and task lists from the official A2A SDK, both majors, as clients of Roost: @a2a-js/sdk 1.x
// (A2A 1.0: SendStreamingMessage and SubscribeToTask over JSON-RPC and HTTP+JSON, ListTasks) and 0.3
// (message/stream, tasks/resubscribe). Each stream brings the task, its status as it works, the reply as
// an artifact and the final status, in that order; a client that leaves closes its stream on the server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { registerTenant, type Tenant } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { namedAgent, startMessagingServer, type MessagingServer } from '../messaging/support.js';

const sendV1 = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, metadata: { agent: 'oracle' }, ...extra });
const textOf = (parts: Array<{ content?: { $case: string; value: unknown } }> | undefined) => parts?.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
type V1Event = { payload?: { $case: string; value: any } };
const summary = (events: V1Event[]) => events.map((e) => `${e.payload!.$case}${e.payload!.$case === 'statusUpdate' ? `:${TaskState[e.payload!.value.status.state]}` : ''}`);
const ORDER = ['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED'];

describe('a2a: streams and task lists from the A2A SDKs, 1.x and 0.3', () => {
  let h: MessagingServer;
  let other: Tenant;

  before(async () => {
    // Every answer takes a moment, so a stream sees the task work; SLOW ones take longer.
    h = await startMessagingServer({ delayMs: 300, slowMs: 1_500 });
    await namedAgent(h.server, undefined, 'oracle');
    other = await registerTenant(h.server, 'a2a-stream-other');
  });
  after(() => h?.close());

  it('the card offers streaming and push notifications', async () => {
    const card = (await h.server.api('GET', '/.well-known/agent-card.json')).body;
    assert.equal(card.capabilities.streaming, true);
    assert.equal(card.capabilities.pushNotifications, true);
  });

  it('SDK 1.x over JSON-RPC: sendMessageStream brings the task, working, the reply, completed', async () => {
    const client = await new ClientFactory().createFromUrl(h.server.url);
    const events: V1Event[] = [];
    for await (const event of client.sendMessageStream(sendV1('stream to me'))) events.push(event as V1Event);
    assert.deepEqual(summary(events), ORDER);
    const artifact = events[2]!.payload!.value;
    assert.equal(textOf(artifact.artifact.parts), 'oracle heard: stream to me');
    assert.equal(artifact.taskId, events[0]!.payload!.value.id);
  });

  it('SDK 1.x over HTTP+JSON: resubscribe to a working task, then ListTasks with its filters and pages', async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }));
    const client = await factory.createFromUrl(h.server.url);
    const slow = await client.sendMessage(sendV1('SLOW stream', { configuration: { returnImmediately: true } }));
    assert.ok('status' in slow);
    const events: V1Event[] = [];
    for await (const event of client.resubscribeTask({ id: slow.id, tenant: '' })) events.push(event as V1Event);
    assert.deepEqual(summary(events), ORDER);
    assert.equal(textOf(events[2]!.payload!.value.artifact.parts), 'oracle heard: SLOW stream');
    // A task that ended has nothing to subscribe to.
    await assert.rejects(async () => {
      for await (const _ of client.resubscribeTask({ id: slow.id, tenant: '' })) void _;
    }, /nothing to subscribe to/);

    const all = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageToken: '', pageSize: 1, includeArtifacts: true });
    assert.equal(all.tasks.length, 1);
    assert.ok(all.totalSize >= 2);
    assert.equal(all.tasks[0]!.id, slow.id, 'the newest change first');
    assert.equal(textOf(all.tasks[0]!.artifacts[0]?.parts), 'oracle heard: SLOW stream');
    const next = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageToken: all.nextPageToken, pageSize: 1 });
    assert.equal(next.tasks.length, 1);
    assert.notEqual(next.tasks[0]!.id, slow.id);
    assert.deepEqual(next.tasks[0]!.artifacts, [], 'no artifacts unless asked');
    const inContext = await client.listTasks({ tenant: '', contextId: slow.contextId, pageToken: '' });
    assert.deepEqual(inContext.tasks.map((t) => t.id), [slow.id]);
    assert.equal(inContext.nextPageToken, '');
  });

  it('ListTasks and SubscribeToTask keep to the caller\'s tenant', async () => {
    const mine = await new ClientFactory().createFromUrl(h.server.url);
    const sent = await mine.sendMessage(sendV1('for the owner only'));
    assert.ok('status' in sent);
    const rpc = (method: string, params: unknown) =>
      h.server.api('POST', '/a2a', { key: other.owner, raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
    const listed = await rpc('ListTasks', {});
    assert.deepEqual(listed.body.result.tasks, [], JSON.stringify(listed.body));
    assert.equal(listed.body.result.totalSize, 0);
    assert.equal((await rpc('SubscribeToTask', { id: sent.id })).body.error.code, -32001);
    const rest = await h.server.api('GET', '/a2a/v1/tasks', { key: other.owner });
    assert.deepEqual(rest.body.tasks, []);
    assert.equal((await rpc('ListTasks', { pageToken: 'not-ours' })).body.error.code, -32602);
  });

  it('SDK 0.3: message/stream and tasks/resubscribe in 0.3\'s shapes, the last status final', async () => {
    const client = await new ClientFactoryV03().createFromUrl(h.server.url);
    const message = (text: string) => ({ kind: 'message' as const, role: 'user' as const, messageId: randomUUID(), parts: [{ kind: 'text' as const, text }] });
    const kinds = (events: Array<{ kind: string; status?: { state: string }; final?: boolean }>) => events.map((e) => `${e.kind}${e.status && e.kind === 'status-update' ? `:${e.status.state}${e.final ? ':final' : ''}` : ''}`);
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message('hello 0.3 stream'), metadata: { agent: 'oracle' } })) events.push(event);
    assert.deepEqual(kinds(events), ['task', 'status-update:working', 'artifact-update', 'status-update:completed:final']);
    assert.deepEqual(events[2].artifact.parts, [{ kind: 'text', text: 'oracle heard: hello 0.3 stream' }]);

    const slow = await client.sendMessage({ message: message('SLOW 0.3'), metadata: { agent: 'oracle' }, configuration: { blocking: false } });
    const again: any[] = [];
    for await (const event of client.resubscribeTask({ id: (slow as { id: string }).id })) again.push(event);
    assert.deepEqual(kinds(again), ['task', 'status-update:working', 'artifact-update', 'status-update:completed:final']);
  });

  it('a client that leaves mid-stream closes the stream on the server', async () => {
    const streams = async () => Number(/roost_extension_queue_depth\{extension="a2a",queue="streamed_replies"\} (\d+)/.exec((await h.server.api('GET', '/metrics')).text)?.[1] ?? 0);
    const leave = new AbortController();
    const res = await fetch(`${h.server.url}/a2a/v1/message:stream`, {
      method: 'POST', signal: leave.signal, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'SLOW then leave' }] }, metadata: { agent: 'oracle' } }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^data: \{"task":/);
    assert.equal(await streams(), 1);
    leave.abort();
    await waitFor('the stream to close on the server', async () => ((await streams()) === 0 ? true : undefined), 15_000);
  });

  it('A2A-Version 1.0 is served as 1.0: a 0.3 method under it is not found', async () => {
    const call = (headers: Record<string, string>) =>
      h.server.api('POST', '/a2a', { raw: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'x' } }), headers: { 'content-type': 'application/json', ...headers } });
    assert.equal((await call({ 'a2a-version': '1.0' })).body.error.code, -32601);
    assert.equal((await call({})).body.error.code, -32001);
  });
});
