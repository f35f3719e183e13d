// The WebSocket front at /ws with the real `ws` client: auth at upgrade, welcome, ping, errors,
// stream subscriptions confined to the caller's tenant, and client message types routed to the
// extension that declared them.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'rk_ws-test-owner-key-0123456789abcdef';

describe('WebSocket /ws', () => {
  let server: TestServer;
  let workDir: string;
  let other: { key: string; tenantId: string };
  let viewerKey: string;
  const sockets: TestSocket[] = [];
  const open = async (key?: string, path?: string) => {
    const socket = await server.ws({ key, path });
    sockets.push(socket);
    return socket;
  };
  const update = async (id: string, name: string, key = OWNER_KEY) => assert.equal((await server.api('PUT', `/api/projects/${id}`, { key, body: { name } })).status, 200);
  /** A ping answered proves every message the server sent before it has arrived. */
  const flush = async (socket: TestSocket) => {
    socket.send({ type: 'ping' });
    await socket.next((m) => m.type === 'pong');
  };

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: OWNER_KEY } });
    workDir = await mkdtemp(`${tmpdir()}/roost-ws-`);
    assert.equal((await loadFixture(server, 'fx-probe', OWNER_KEY)).status, 201);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'other-co' } });
    other = { key: registered.body.apiKey, tenantId: registered.body.tenant.id };
    viewerKey = (await server.api('POST', '/api/tenants/me/members', { key: OWNER_KEY, body: { role: 'viewer' } })).body.apiKey;
  });
  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await server.cleanup();
  });

  it('welcomes an authenticated client and answers ping with pong', async () => {
    const socket = await open(OWNER_KEY);
    const welcome = await socket.next((m) => m.type === 'welcome');
    assert.equal(welcome.tenantId, 'default');
    assert.equal(welcome.role, 'owner');
    assert.equal(typeof welcome.clientId, 'string');
    assert.equal(welcome.heartbeatSeconds, 30);
    socket.send({ type: 'ping' });
    const pong = await socket.next((m) => m.type === 'pong');
    assert.ok(!Number.isNaN(Date.parse(pong.ts)));
  });

  it('answers malformed messages with an error and keeps the connection', async () => {
    const socket = await open(OWNER_KEY);
    const cases: Array<[string, RegExp]> = [
      ['{not json', /JSON objects/],
      ['[1,2,3]', /JSON objects/],
      ['"just a string"', /JSON objects/],
      ['{"sessionId":"x"}', /needs a string "type"/],
      ['{"type":""}', /needs a string "type"/],
      ['{"type":"teleport"}', /unknown message type "teleport"/],
      ['{"type":"subscribe"}', /needs the id of a stream/],
      ['{"type":"subscribe","projectId":"../../etc"}', /projectId must be an id/],
    ];
    for (const [text, message] of cases) {
      socket.send(text);
      const error = await socket.next((m) => m.type === 'error');
      assert.match(error.message, message, text);
      assert.equal(typeof error.code, 'string');
    }
    await flush(socket);
  });

  it('refuses the upgrade without a key (401), with a bad key (403) and off /ws (404)', async () => {
    await assert.rejects(server.ws(), (err: { status?: number }) => err.status === 401);
    await assert.rejects(server.ws({ key: 'rk_not-a-real-key' }), (err: { status?: number }) => err.status === 403);
    await assert.rejects(server.ws({ key: OWNER_KEY, path: '/elsewhere' }), (err: { status?: number }) => err.status === 404);
  });

  it('accepts a one-time ticket in the URL instead of the key', async () => {
    const issued = await server.api('POST', '/api/ws/ticket', { key: other.key });
    assert.equal(issued.status, 201);
    assert.ok(issued.body.expiresInSeconds > 0);
    const socket = await open(undefined, `/ws?ticket=${issued.body.ticket}`);
    const welcome = await socket.next((m) => m.type === 'welcome');
    assert.equal(welcome.tenantId, other.tenantId);
    await assert.rejects(server.ws({ path: `/ws?ticket=${issued.body.ticket}` }), (err: { status?: number }) => err.status === 403);
    await assert.rejects(server.ws({ path: '/ws?ticket=made-up' }), (err: { status?: number }) => err.status === 403);
    assert.equal((await server.api('POST', '/api/ws/ticket')).status, 401);
  });

  it('delivers project_updated to a subscriber of its own project until it unsubscribes', async () => {
    const project = (await server.api('POST', '/api/projects', { key: OWNER_KEY, body: { name: 'watched', workingDir: workDir } })).body;
    const socket = await open(OWNER_KEY);
    socket.send({ type: 'subscribe', projectId: project.id });
    assert.deepEqual(await socket.next((m) => m.type === 'subscribed'), { type: 'subscribed', projectId: project.id });
    await update(project.id, 'renamed once');
    const event = await socket.next((m) => m.type === 'project_updated');
    assert.equal(event.projectId, project.id);
    assert.equal(event.action, 'updated');
    assert.equal(event.project.name, 'renamed once');

    socket.send({ type: 'unsubscribe', projectId: project.id });
    assert.deepEqual(await socket.next((m) => m.type === 'unsubscribed'), { type: 'unsubscribed', projectId: project.id });
    await update(project.id, 'renamed twice');
    await flush(socket);
    assert.equal(socket.messages.filter((m) => m.type === 'project_updated').length, 0);
  });

  it("refuses a subscription to another tenant's project and never leaks its events", async () => {
    const mine = (await server.api('POST', '/api/projects', { key: OWNER_KEY, body: { name: 'private', workingDir: workDir } })).body;
    const theirs = (await server.api('POST', '/api/projects', { key: other.key, body: { name: 'theirs', workingDir: workDir } })).body;
    const owner = await open(OWNER_KEY);
    const intruder = await open(other.key);
    owner.send({ type: 'subscribe', projectId: mine.id });
    await owner.next((m) => m.type === 'subscribed');
    intruder.send({ type: 'subscribe', projectId: mine.id });
    const refused = await intruder.next((m) => m.type === 'error');
    assert.equal(refused.code, 'NOT_FOUND');
    assert.match(refused.message, new RegExp(`projectId ${mine.id} not found`));
    intruder.send({ type: 'subscribe', projectId: theirs.id });
    await intruder.next((m) => m.type === 'subscribed');

    await update(mine.id, 'private, renamed');
    await update(theirs.id, 'theirs, renamed', other.key);
    assert.equal((await owner.next((m) => m.type === 'project_updated')).projectId, mine.id);
    assert.equal((await intruder.next((m) => m.type === 'project_updated')).projectId, theirs.id);
    await flush(owner);
    await flush(intruder);
    assert.deepEqual(owner.messages.filter((m) => m.type === 'project_updated'), []);
    assert.deepEqual(intruder.messages.filter((m) => m.type === 'project_updated'), []);
  });

  it('routes a declared client type to its extension with the caller, which answers with ws_send', async () => {
    const socket = await open(OWNER_KEY);
    socket.send({ type: 'echo_test', text: 'hello extension', n: 7 });
    const reply = await socket.next((m) => m.type === 'echo_test_reply');
    assert.deepEqual(reply.received, { type: 'echo_test', text: 'hello extension', n: 7 });
    assert.equal(reply.auth.tenantId, 'default');
    assert.equal(reply.auth.role, 'owner');
    assert.match(reply.auth.actor, /^key:/);

    const tenant = await open(other.key);
    tenant.send({ type: 'echo_test', text: 'from another tenant' });
    assert.equal((await tenant.next((m) => m.type === 'echo_test_reply')).auth.tenantId, other.tenantId);
    await flush(socket);
    assert.equal(socket.messages.filter((m) => m.type === 'echo_test_reply').length, 0, 'the reply went to its own client only');
  });

  it('lets viewers subscribe but not send declared client types', async () => {
    const project = (await server.api('POST', '/api/projects', { key: OWNER_KEY, body: { name: 'for viewers', workingDir: workDir } })).body;
    const viewer = await open(viewerKey);
    assert.equal((await viewer.next((m) => m.type === 'welcome')).role, 'viewer');
    viewer.send({ type: 'echo_test', text: 'may I?' });
    const refused = await viewer.next((m) => m.type === 'error');
    assert.equal(refused.code, 'FORBIDDEN');
    viewer.send({ type: 'subscribe', projectId: project.id });
    await viewer.next((m) => m.type === 'subscribed');
    await update(project.id, 'seen by the viewer');
    assert.equal((await viewer.next((m) => m.type === 'project_updated')).projectId, project.id);
    await flush(viewer);
    assert.equal(viewer.messages.filter((m) => m.type === 'echo_test_reply').length, 0);
  });

  it('closes a connection that sends a message over 1 MiB', async () => {
    const socket = await open(OWNER_KEY);
    const closed = new Promise<number>((resolve) => socket.socket.once('close', (code) => resolve(code)));
    socket.send({ type: 'echo_test', pad: 'x'.repeat(1024 * 1024 + 10) });
    assert.equal(await closed, 1009);
    const fresh = await open(OWNER_KEY);
    await flush(fresh);
  });
});
