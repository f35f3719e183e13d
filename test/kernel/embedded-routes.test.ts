// The kernel's embedding hook (startServer's second argument): a route served inside the kernel
// process goes through the same matching, authentication, audit and body parsing as an extension route.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RequestMessage } from '../../protocol/messages.js';

type ServerModule = typeof import('../../kernel/server.js');
const { startServer } = (await import(new URL('../../dist/kernel/server.js', import.meta.url).href)) as ServerModule;

describe('embedded routes', { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<ServerModule['startServer']>>;
  let dataDir: string;
  const seen: RequestMessage[] = [];

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'roost-embed-'));
    server = await startServer({ port: 0, dataDir, extensionDirs: [], localAuthRequired: true, apiKey: 'embed-test-owner-key-0123456789' }, {
      routes: [
        { method: 'GET', path: '/api/embedded/things/:id', handler: (m) => (seen.push(m), { status: 200, body: { id: m.params.id, actor: m.auth.actor } }) },
        { method: 'POST', path: '/api/embedded/things', handler: (m) => (seen.push(m), { status: 201, body: { got: m.body } }) },
      ],
    });
  });
  after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, options: { key?: string; body?: string } = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: options.body,
    });

  it('serves the route with its params and the caller, as an extension would receive them', async () => {
    const res = await call('GET', '/api/embedded/things/a%20b?x=1', { key: 'embed-test-owner-key-0123456789' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { id: string; actor: string };
    assert.equal(body.id, 'a b');
    assert.match(body.actor, /^key:/);
    const message = seen.at(-1)!;
    assert.equal(message.type, 'request');
    assert.equal(message.route, 'GET /api/embedded/things/:id');
    assert.deepEqual(message.query, { x: '1' });
    assert.equal(typeof message.id, 'string');
  });

  it('applies authentication before the handler runs', async () => {
    const before = seen.length;
    const res = await call('GET', '/api/embedded/things/1');
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: string }).code, 'AUTH_REQUIRED');
    assert.equal(seen.length, before);
  });

  it('parses JSON bodies, refuses malformed ones, and audits mutations', async () => {
    const bad = await call('POST', '/api/embedded/things', { key: 'embed-test-owner-key-0123456789', body: '{"half":' });
    assert.equal(bad.status, 400);
    const good = await call('POST', '/api/embedded/things', { key: 'embed-test-owner-key-0123456789', body: '{"name":"n"}' });
    assert.equal(good.status, 201);
    assert.deepEqual(await good.json(), { got: { name: 'n' } });
    await server.kernel.audit.flush();
    const rows = await server.kernel.db('audit_log').where({ action: 'POST /api/embedded/things' });
    assert.ok(rows.length >= 1, 'the embedded mutation is in the audit log');
  });
});

describe('a start-up that fails', { timeout: 60_000 }, () => {
  it('closes what it opened and leaves the data dir usable by the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-embed-fail-'));
    try {
      // An embedded route on a path the kernel serves is refused part-way through start-up.
      await assert.rejects(
        startServer({ port: 0, dataDir, extensionDirs: [] }, { routes: [{ method: 'GET', path: '/api/health', handler: () => ({ status: 200 }) }] }),
        /already serves|kernel/,
      );
      const next = await startServer({ port: 0, dataDir, extensionDirs: [] });
      const health = await fetch(`${next.url}/api/health`);
      assert.equal(health.status, 200);
      await next.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
