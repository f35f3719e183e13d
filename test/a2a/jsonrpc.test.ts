// The A2A JSON-RPC binding the cards advertise: POST /a2a and POST /a2a/agents/:id with message/send,
// tasks/get and tasks/cancel in the protocol's shapes, JSON-RPC errors for everything that fails, and
// contextId continuing a conversation in the same session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { lastUserText, namedAgent, speakerOf, startMessagingServer, type MessagingServer } from '../messaging/support.js';

const message = (text: string, extra: Record<string, unknown> = {}) => ({ kind: 'message', role: 'user', messageId: `m-${text.length}-${Math.random()}`, parts: [{ kind: 'text', text }], ...extra });

describe('a2a: the JSON-RPC binding', () => {
  let h: MessagingServer;
  let t: Tenant;
  let other: Tenant;
  let oracle: { id: string; name: string };
  let scribe: { id: string; name: string };
  /** One JSON-RPC exchange: the HTTP status and the response. */
  const post = async (key: string | undefined, body: unknown, path = '/a2a') => {
    const res = await h.server.api('POST', path, { key, raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: res.body };
  };
  const rpc = async (method: string, params: unknown, path = '/a2a', key = t.operator) => {
    const res = await post(key, { jsonrpc: '2.0', id: 1, method, params }, path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const completed = (id: string, path = '/a2a') =>
    waitFor(`task ${id} to complete`, async () => {
      const got = await rpc('tasks/get', { id }, path);
      return got.result?.status.state === 'completed' ? got.result : undefined;
    }, 60_000);

  before(async () => {
    h = await startMessagingServer({ slowMs: 60_000 });
    t = await registerTenant(h.server, 'a2a-rpc-org', 'pro');
    other = await registerTenant(h.server, 'a2a-rpc-other');
    oracle = await namedAgent(h.server, t.operator, 'oracle');
    scribe = await namedAgent(h.server, t.operator, 'scribe');
  });
  after(() => h?.close());

  it('message/send starts a task, tasks/get follows it to its answer, in A2A\'s shapes', async () => {
    const sent = await rpc('message/send', { message: message('what is A2A?'), metadata: { agent: 'oracle' } });
    assert.equal(sent.jsonrpc, '2.0');
    assert.equal(sent.id, 1);
    assert.equal(sent.result.kind, 'task');
    assert.ok(['submitted', 'working'].includes(sent.result.status.state));
    assert.deepEqual(sent.result.history[0].parts, [{ kind: 'text', text: 'what is A2A?' }]);
    const done = await completed(sent.result.id);
    assert.equal(done.contextId, sent.result.contextId);
    assert.deepEqual(done.artifacts[0].parts, [{ kind: 'text', text: 'oracle heard: what is A2A?' }]);
    assert.equal(done.status.message.role, 'agent');
    assert.equal((await rpc('tasks/get', { id: sent.result.id, historyLength: 1 })).result.history.length, 1);
    // The same task over the REST routes.
    assert.equal((await h.server.api('GET', `/a2a/tasks/${sent.result.id}`, { key: t.viewer })).body.status.state, 'completed');
  });

  it('an agent\'s own endpoint takes messages without naming the agent; blocking waits for the answer', async () => {
    const byId = await rpc('message/send', { message: message('hello scribe'), configuration: { blocking: true } }, `/a2a/agents/${scribe.id}`);
    assert.equal(byId.result.status.state, 'completed', JSON.stringify(byId));
    assert.deepEqual(byId.result.artifacts[0].parts, [{ kind: 'text', text: 'scribe heard: hello scribe' }]);
    const byName = await rpc('message/send', { message: message('by name'), configuration: { blocking: true } }, '/a2a/agents/oracle');
    assert.equal(byName.result.metadata.agentId, oracle.id);
    // Another agent's endpoint does not know the task.
    assert.equal((await rpc('tasks/get', { id: byId.result.id }, `/a2a/agents/${oracle.id}`)).error.code, -32001);
    assert.equal((await rpc('tasks/get', { id: byId.result.id }, `/a2a/agents/${scribe.id}`)).result.id, byId.result.id);
  });

  it('a second message in the same context continues the conversation in the same session', async () => {
    const first = await rpc('message/send', { message: message('remember the word plum', { contextId: 'ctx-plum' }), metadata: { agent: 'oracle' }, configuration: { blocking: true } });
    assert.equal(first.result.status.state, 'completed', JSON.stringify(first));
    const second = await rpc('message/send', { message: message('which word?', { contextId: 'ctx-plum' }), metadata: { agent: 'oracle' }, configuration: { blocking: true } });
    assert.equal(second.result.contextId, 'ctx-plum');
    assert.notEqual(second.result.id, first.result.id);
    assert.equal(second.result.metadata.sessionId, first.result.metadata.sessionId, 'the same session');
    assert.deepEqual(second.result.artifacts[0].parts, [{ kind: 'text', text: 'oracle heard: which word?' }], 'the answer is the second turn\'s, not the first\'s');
    const asked = h.anthropic.requests.filter((r) => r.path === '/v1/messages' && speakerOf(r) === 'oracle' && lastUserText(r) === 'which word?').at(-1)!;
    assert.match(JSON.stringify(asked.body.messages), /remember the word plum/, 'the model saw the whole conversation');
    // The same context with another agent is another conversation; over REST the context goes on too.
    const toScribe = await rpc('message/send', { message: message('hi', { contextId: 'ctx-plum' }), metadata: { agent: 'scribe' } });
    assert.notEqual(toScribe.result.metadata.sessionId, first.result.metadata.sessionId);
    const rest = await h.server.api('POST', '/a2a/tasks/send', { key: t.operator, body: { contextId: 'ctx-plum', agent: 'oracle', message: { role: 'user', parts: [{ kind: 'text', text: 'and again?' }] } } });
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.metadata.sessionId, first.result.metadata.sessionId);
    assert.deepEqual((await completed(rest.body.id)).artifacts[0].parts, [{ kind: 'text', text: 'oracle heard: and again?' }]);
  });

  it('tasks/cancel stops a working task; a task that ended is not cancelable', async () => {
    const slow = await rpc('message/send', { message: message('SLOW work'), metadata: { agent: 'scribe' } });
    const canceled = await rpc('tasks/cancel', { id: slow.result.id });
    assert.equal(canceled.result.status.state, 'canceled');
    const again = await rpc('tasks/cancel', { id: slow.result.id });
    assert.deepEqual(again.error.code, -32002);
    assert.match(again.error.message, /is canceled/);
  });

  it('answers JSON-RPC errors, with HTTP 200, for everything that fails', async () => {
    const done = await rpc('message/send', { message: message('done'), metadata: { agent: 'oracle' }, configuration: { blocking: true } });
    const cases: Array<[unknown, number, RegExp, unknown]> = [
      ['{"jsonrpc": "2.0", ', -32700, /Parse error/, null],
      [`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":${'['.repeat(100)}${']'.repeat(100)}}`, -32600, /Invalid Request: .*deeper/, null],
      [[{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }], -32600, /batches are not supported/, null],
      [{ id: 2, method: 'tasks/get', params: { id: 'x' } }, -32600, /jsonrpc must be "2.0"/, null],
      [{ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'x' } }, -32600, /id must be a string or a number/, null],
      [{ jsonrpc: '2.0', id: 3, method: 'tasks/list' }, -32601, /Method not found: tasks\/list/, 3],
      [{ jsonrpc: '2.0', id: 'a', method: 'message/send', params: {} }, -32602, /params.message is required/, 'a'],
      [{ jsonrpc: '2.0', id: 4, method: 'message/send', params: { message: { role: 'agent', parts: [{ kind: 'text', text: 'x' }], messageId: 'm' } } }, -32602, /params.message.role/, 4],
      [{ jsonrpc: '2.0', id: 5, method: 'message/send', params: { message: message('x') } }, -32602, /several agents: name one/, 5],
      [{ jsonrpc: '2.0', id: 6, method: 'message/send', params: { message: message('x'), metadata: { agent: 'nobody' } } }, -32602, /agent nobody not found/, 6],
      [{ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { ...message('x'), parts: [{ kind: 'file', file: { uri: 'file:///etc/passwd' } }] }, metadata: { agent: 'oracle' } } }, -32005, /only text parts/, 7],
      [{ jsonrpc: '2.0', id: 8, method: 'message/send', params: { message: message('more', { taskId: done.result.id }), metadata: { agent: 'oracle' } } }, -32004, /takes no further messages: send a new message with contextId/, 8],
      [{ jsonrpc: '2.0', id: 9, method: 'message/send', params: { message: message('more', { taskId: 'no-such-task' }) } }, -32001, /Task not found/, 9],
      [{ jsonrpc: '2.0', id: 10, method: 'tasks/get', params: { id: 'no-such-task' } }, -32001, /Task not found: no-such-task/, 10],
      [{ jsonrpc: '2.0', id: 11, method: 'tasks/get', params: {} }, -32602, /params.id is required/, 11],
      // A stream that cannot start is refused as plainly as any call (a JSON answer, not an event stream).
      [{ jsonrpc: '2.0', id: 12, method: 'message/stream', params: { message: message('x') } }, -32602, /several agents: name one/, 12],
      [{ jsonrpc: '2.0', id: 13, method: 'tasks/pushNotificationConfig/set', params: {} }, -32602, /params.taskId is required/, 13],
      [{ jsonrpc: '2.0', id: 14, method: 'tasks/pushNotificationConfig/set', params: { taskId: done.result.id, pushNotificationConfig: { url: 'file:///etc/passwd' } } }, -32602, /http/, 14],
      [{ jsonrpc: '2.0', id: 15, method: 'tasks/resubscribe', params: { id: done.result.id } }, -32004, /is completed: there is nothing to subscribe to/, 15],
    ];
    for (const [body, code, pattern, id] of cases) {
      const res = await post(t.operator, body);
      assert.equal(res.status, 200, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.jsonrpc, '2.0');
      assert.equal(res.body.id, id);
      assert.equal(res.body.error.code, code, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, pattern);
      assert.equal(res.body.result, undefined);
    }
  });

  it('keeps tenants apart and refuses callers without a valid key or the role', async () => {
    const mine = await rpc('message/send', { message: message('mine'), metadata: { agent: 'oracle' } });
    assert.equal((await rpc('tasks/get', { id: mine.result.id }, '/a2a', other.operator)).error.code, -32001);
    assert.equal((await rpc('tasks/cancel', { id: mine.result.id }, '/a2a', other.owner)).error.code, -32001);
    assert.equal((await rpc('message/send', { message: message('x') }, `/a2a/agents/${oracle.id}`, other.operator)).error.code, -32602, 'another tenant\'s agent is unknown');
    const wrongKey = await post('roost_not-a-key', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: mine.result.id } });
    assert.ok([401, 403].includes(wrongKey.status), JSON.stringify(wrongKey));
    const viewer = await post(t.viewer, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('x'), metadata: { agent: 'oracle' } } });
    assert.equal(viewer.status, 403, 'a viewer sends no messages');
    const foreign = await h.server.api('POST', '/a2a', { key: t.operator, raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: mine.result.id } }), headers: { 'content-type': 'application/json', origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403, 'a foreign origin is refused');
  });
});
