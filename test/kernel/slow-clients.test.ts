// Slow and greedy clients: one address holds at most its cap of connections (the one over gets 503
// TOO_MANY_CONNECTIONS and the server still answers everyone else), connections that trickle their
// headers (slowloris) or send nothing are cut after ROOST_HEADERS_TIMEOUT_MS, and a WebSocket client
// that stops reading is closed with 1013 once its unread data passes ROOST_WS_MAX_BUFFERED_BYTES.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const CAP = 20;

interface RawSocket {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

describe('slow and greedy clients', { timeout: 90_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: { ROOST_MAX_LOOPBACK_CONNECTIONS: String(CAP), ROOST_HEADERS_TIMEOUT_MS: '3000', ROOST_WS_MAX_BUFFERED_BYTES: String(256 * 1024) },
    });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(() => server?.cleanup());

  /** A connection from `localAddress` that sends `text` and never finishes its request. */
  const open = (text: string, localAddress = '127.0.0.1') =>
    new Promise<RawSocket>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: server.port, localAddress });
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        if (text) socket.write(text);
        resolve({ socket, closed });
      });
      socket.once('error', reject);
    });
  /** A whole request from another loopback address (another client), on a connection of its own. */
  const getFrom = (localAddress: string, path: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path, localAddress, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end();
    });
  const healthFrom = async (localAddress: string) => (await getFrom(localAddress, '/api/health')).status;
  /** Read from an address of its own, so it is never refused for the addresses under test. */
  const metric = async (name: string) => {
    const { text } = await getFrom('127.0.0.3', '/metrics');
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };

  it('holds an address to its cap, refuses the rest with 503, answers other clients, and cuts trickled headers', async () => {
    const partial = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';
    const sockets: RawSocket[] = [];
    for (let i = 0; i < CAP + 5; i++) sockets.push(await open(partial));
    // The refused ones are answered and closed at once; the held ones wait for their headers.
    const refused = await waitFor('the connections over the cap to be refused', async () => {
      const done = await Promise.all(sockets.map((s) => Promise.race([s.closed, Promise.resolve(undefined)])));
      const answers = done.filter((text): text is string => text !== undefined);
      return answers.length >= 5 ? answers : undefined;
    });
    for (const text of refused) {
      assert.match(text, /^HTTP\/1\.1 503 /);
      assert.match(text, /Retry-After: 1/);
      assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).code, 'TOO_MANY_CONNECTIONS');
    }
    assert.ok(refused.length <= CAP + 5 - (CAP - 3), `at most a few of this test's own connections besides the ${CAP} held: ${refused.length} refused`);
    // Another client (address) is served meanwhile.
    assert.equal(await healthFrom('127.0.0.2'), 200);
    assert.ok((await metric('roost_http_connections_refused_total')) >= 5);

    // The held ones, and one that sends nothing at all, are cut once the headers timeout passes: 408.
    const silent = await open('');
    const held = await Promise.all(sockets.map((s) => s.closed));
    for (const text of held.filter((t) => !t.startsWith('HTTP/1.1 503'))) assert.match(text, /^HTTP\/1\.1 408 /);
    await silent.closed;
    // The address may connect again, once the server has seen its connections close (the client may see
    // them close first).
    await waitFor('the address to be served again', async () => ((await healthFrom('127.0.0.1')) === 200 ? true : undefined));
  });

  it('closes a WebSocket client that stops reading with 1013, and keeps serving others', async () => {
    const client = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
    const welcome = new Promise((resolve) => client.once('message', resolve));
    const closed = new Promise<number>((resolve) => client.on('close', (code) => resolve(code)));
    client.on('error', () => undefined);
    await welcome;
    const before = await metric('roost_ws_slow_clients_closed_total');
    // The client stops reading; each echo_test it sends makes the server send it ~64 KiB back.
    (client as unknown as { _socket: Socket })._socket.pause();
    const payload = 'x'.repeat(64 * 1024);
    await waitFor('the server to close the client that does not read', async () => {
      for (let i = 0; i < 16 && client.readyState === WebSocket.OPEN; i++) client.send(JSON.stringify({ type: 'echo_test', payload }));
      return (await metric('roost_ws_slow_clients_closed_total')) > before ? true : undefined;
    }, 60_000);
    assert.equal((await server.api('GET', '/api/health')).status, 200);
    // Reading again, the client finds the close frame behind what was buffered for it.
    (client as unknown as { _socket: Socket })._socket.resume();
    assert.equal(await closed, 1013);
  });
});
