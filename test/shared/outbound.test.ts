// The outbound guard every extension's requests to other servers go through
// (sdk/outbound.ts), against a real local HTTP server.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { blockedAddress, parseHttpUrl, request } from '../../sdk/outbound.js';

describe('outbound requests', () => {
  let server: Server;
  let port: number;
  let hits = 0;

  before(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/moved') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      if (req.url === '/big') return res.writeHead(200).end(Buffer.alloc(4096));
      if (req.url === '/text') return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok, thanks');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accept: req.headers.accept }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (url: string, reach: 'no-metadata' | 'no-loopback' | 'public', read?: 'json' | 'text' | 'bytes', maxBytes = 1024) =>
    request({ method: 'GET', url: parseHttpUrl(url), timeoutMs: 5_000, maxBytes, reach, ...(read ? { read } : {}) });

  it('tells each reach which addresses it may not touch', () => {
    for (const address of ['169.254.169.254', 'fe80::1', 'metadata.google.internal', '::ffff:169.254.169.254']) {
      assert.equal(blockedAddress(address, 'no-metadata'), true, address);
    }
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '100.64.0.1', '198.18.0.1', '224.0.0.1', '255.255.255.255', '::1', 'fd12::1', 'ff02::1', 'localhost', 'app.localhost', '::ffff:10.0.0.1']) {
      assert.equal(blockedAddress(address, 'public'), true, address);
      assert.equal(blockedAddress(address, 'no-metadata'), false, address);
    }
    for (const address of ['93.184.215.14', '2606:4700::1111', 'example.com']) assert.equal(blockedAddress(address, 'public'), false, address);
    // no-loopback: this machine and metadata, but private networks are fine.
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::', '0.0.0.0', '::ffff:127.0.0.1', 'localhost', 'app.localhost', '169.254.169.254', 'metadata']) {
      assert.equal(blockedAddress(address, 'no-loopback'), true, address);
    }
    for (const address of ['10.1.2.3', '192.168.1.1', 'fd12::1', '93.184.215.14', 'example.com']) assert.equal(blockedAddress(address, 'no-loopback'), false, address);
  });

  it('refuses this machine for a no-loopback reach, naming it, before sending', async () => {
    const before = hits;
    await assert.rejects(get(`http://127.0.0.1:${port}/`, 'no-loopback'), /^RoostError: 127\.0\.0\.1 is this machine \(a loopback address\), which may not be reached from here$/);
    await assert.rejects(get(`http://[::1]:${port}/`, 'no-loopback'), /::1 is this machine/);
    await assert.rejects(get('http://169.254.169.254/', 'no-loopback'), /169\.254\.169\.254 is a link-local or cloud-metadata address/);
    assert.equal(hits, before, 'nothing was sent');
  });

  it('refuses a private address for a public reach, by literal address and by a name that resolves to one, before sending', async () => {
    const before = hits;
    await assert.rejects(get(`http://127.0.0.1:${port}/`, 'public'), /127\.0\.0\.1 is a loopback, private, link-local or reserved address/);
    await assert.rejects(get(`http://localhost:${port}/`, 'public'), /localhost is a loopback, private, link-local or reserved address/);
    await assert.rejects(get('http://169.254.169.254/latest/meta-data/', 'no-metadata'), /link-local or cloud-metadata/);
    assert.equal(hits, before, 'nothing was sent');
  });

  it('reads JSON, text and bytes within the size limit, and follows no redirect', async () => {
    assert.deepEqual((await get(`http://127.0.0.1:${port}/`, 'no-metadata')).body, { accept: 'application/json' });
    assert.equal((await get(`http://localhost:${port}/text`, 'no-metadata', 'text')).body, 'ok, thanks');
    const bytes = await get(`http://127.0.0.1:${port}/big`, 'no-metadata', 'bytes', 8192);
    assert.ok(Buffer.isBuffer(bytes.body) && bytes.body.length === 4096);
    await assert.rejects(get(`http://127.0.0.1:${port}/big`, 'no-metadata', 'bytes'), /answered more than 1024 bytes/);
    await assert.rejects(get(`http://127.0.0.1:${port}/moved`, 'no-metadata'), /redirects are not followed/);
    await assert.rejects(get(`http://127.0.0.1:${port}/text`, 'no-metadata'), /not JSON/);
  });

  it('refuses what is not an http(s) URL, or carries credentials', () => {
    assert.throws(() => parseHttpUrl('ftp://example.com'), /must be http or https/);
    assert.throws(() => parseHttpUrl('https://user:pw@example.com'), /must not carry credentials/);
    assert.throws(() => parseHttpUrl('not a url'), /is not a URL/);
  });
});
