// The health probes (from the machine's owner: loopback, no key) and the reads the response cache holds
// (from any caller the front would let read them) are answered before koa (kernel/http/fast-front.ts)
// when they have no body and no Origin. They must answer as the whole front does, keep what every request
// gets (request id, Vary, access log, metrics, authentication and rate limit), and leave the rest to it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { schemaValidator } from '../../protocol/validate.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';

describe('the health probes, answered before the whole front', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_RATE_LIMIT: '3' } });
  });
  after(() => server.cleanup());

  it('answers as the whole front does, with the request id, Vary and content type, as the schemas say', async () => {
    const schemas: Record<string, string> = { '/health/live': 'api/health-live.json', '/health/ready': 'api/health-ready.json', '/api/health': 'api/health.json' };
    for (const [path, schema] of Object.entries(schemas)) {
      const probe = await server.api('GET', path, { headers: { 'x-request-id': 'probe-1.a' } });
      // A query string is not a plain probe: the whole front answers.
      const front = await server.api('GET', `${path}?via=front`, { headers: { 'x-request-id': 'front-1.a' } });
      const valid = schemaValidator(schema);
      assert.ok(valid(probe.body), `${path}: ${JSON.stringify(valid.errors)}`);
      assert.equal(probe.status, 200, path);
      assert.equal(front.status, 200, path);
      for (const [res, id] of [[probe, 'probe-1.a'], [front, 'front-1.a']] as const) {
        assert.equal(res.headers.get('x-request-id'), id);
        assert.equal(res.headers.get('vary'), 'Origin');
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
      }
      const { uptimeSeconds: _p, ...probeBody } = probe.body as Record<string, unknown>;
      const { uptimeSeconds: _f, ...frontBody } = front.body as Record<string, unknown>;
      assert.deepEqual(probeBody, frontBody, path);
    }
    const insane = await server.api('GET', '/health/live', { headers: { 'x-request-id': 'has spaces' } });
    assert.match(insane.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const head = await server.api('HEAD', '/api/health');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.ok(Number(head.headers.get('content-length')) > 1000);
  });

  it('records each probe in the access log and the metrics, under its route', async () => {
    const id = `probe-${Date.now()}`;
    assert.equal((await server.api('GET', '/health/live', { headers: { 'x-request-id': id } })).status, 200);
    await waitFor('the probe in the access log', async () => server.log().includes(`access GET /health/live 200`) && server.log().includes(`id=${id} client=127.0.0.1`));
    const metrics = await server.api('GET', '/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    assert.match(metrics.text, /roost_http_requests_total\{[^}]*route="\/health\/live"[^}]*owner="kernel"[^}]*\} [1-9]/);
  });

  it('leaves to the whole front what is not a plain probe: a foreign page, a key, a body, a forwarded caller', async () => {
    const foreignOrigin = await server.api('GET', '/health/live', { headers: { origin: 'http://evil.example' } });
    assert.equal(foreignOrigin.status, 403);
    assert.equal((foreignOrigin.body as { code: string }).code, 'FORBIDDEN_ORIGIN');
    const rebound = await server.api('GET', '/api/health', { headers: { host: 'evil.example' } });
    assert.equal(rebound.status, 403);
    const badKey = await server.api('GET', '/health/ready', { key: 'rk_not_a_key_0123456789' });
    assert.equal(badKey.status, 403, badKey.text);
    assert.equal((badKey.body as { code: string }).code, 'INVALID_API_KEY');
    const posted = await server.api('POST', '/health/live', { body: {} });
    assert.equal(posted.status, 405);
    // A caller behind an untrusted proxy is not the machine's owner: rate limited as any remote caller
    // (its bucket is the socket's address, which the refusals above drew on too).
    const forwarded = [];
    for (let i = 0; i < 4; i++) forwarded.push((await server.api('GET', '/health/live', { headers: { 'x-forwarded-for': '203.0.113.9' } })).status);
    assert.equal(forwarded.at(-1), 429, `a remote caller past the limit is refused: ${forwarded.join(' ')}`);
    // The owner on loopback is not limited.
    for (let i = 0; i < 6; i++) assert.equal((await server.api('GET', '/health/live')).status, 200);
  });
});

describe('cached reads, answered before the whole front', { skip: onPostgres && 'the response cache is off on PostgreSQL (several instances)' }, () => {
  let server: TestServer;
  let ownerKey: string;
  const agentIds: string[] = [];
  /** A key of the default tenant's, with a rate bucket of its own. */
  const member = async (role: 'owner' | 'viewer') => {
    const created = await server.api('POST', '/api/tenants/me/members', { body: { role } });
    assert.equal(created.status, 201, created.text);
    return created.body as { apiKey: string; keyHash: string };
  };
  before(async () => {
    server = await startTestServer({ env: { ROOST_RATE_LIMIT: '8' } });
    for (const name of ['fast-one', 'fast-two']) {
      const created = await server.api('POST', '/api/agents', { body: { name, model: 'claude-sonnet-4-5' } });
      assert.equal(created.status, 201, created.text);
      agentIds.push(created.body.id);
    }
    ownerKey = (await member('owner')).apiKey;
  });
  after(() => server?.cleanup());

  it('answers a kept read as the whole front does, and as the extension did', async () => {
    const reader = (await member('owner')).apiKey;
    for (const path of [`/api/agents/${agentIds[0]}`, '/api/agents?limit=1', '/api/agents?limit=2']) {
      // The first read fills the cache through the whole front, the second is the kept answer; a caller
      // with a key has an entry of its own (the same record), filled and read the same way.
      const first = await server.api('GET', path, { headers: { 'x-request-id': 'fill-1.a' } });
      const kept = await server.api('GET', path, { headers: { 'x-request-id': 'kept-1.a' } });
      const keyed = await server.api('GET', path, { key: reader, headers: { 'x-request-id': 'keyed-1.a' } });
      const keyedKept = await server.api('GET', path, { key: reader, headers: { 'x-request-id': 'keyed-2.a' } });
      for (const [res, id] of [[first, 'fill-1.a'], [kept, 'kept-1.a'], [keyed, 'keyed-1.a'], [keyedKept, 'keyed-2.a']] as const) {
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.equal(res.headers.get('x-request-id'), id);
        assert.equal(res.headers.get('vary'), 'Origin');
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
      }
      assert.equal(kept.text, first.text, path);
      assert.deepEqual(keyed.body, first.body, path);
      assert.equal(keyedKept.text, keyed.text, path);
    }
    const one = await server.api('GET', '/api/agents?limit=1');
    const two = await server.api('GET', '/api/agents?limit=2');
    assert.equal(one.body.agents.length, 1, 'the query is part of what is kept');
    assert.equal(two.body.agents.length, 2);
    const head = await server.api('HEAD', `/api/agents/${agentIds[0]}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  it('reads a change back at once, whichever way it was made', async () => {
    const path = `/api/agents/${agentIds[1]}`;
    assert.equal((await server.api('GET', path)).body.name, 'fast-two');
    assert.equal((await server.api('GET', path)).body.name, 'fast-two');
    assert.equal((await server.api('PUT', path, { key: ownerKey, body: { name: 'fast-renamed' } })).status, 200);
    assert.equal((await server.api('GET', path)).body.name, 'fast-renamed');
    assert.equal((await server.api('DELETE', path)).status, 204);
    const gone = await server.api('GET', path);
    assert.equal(gone.status, 404, gone.text);
  });

  it('records each kept read in the access log and the metrics, under its route and tenant', async () => {
    const id = `kept-${Date.now()}`;
    const path = `/api/agents/${agentIds[0]}`;
    await server.api('GET', path);
    assert.equal((await server.api('GET', path, { headers: { 'x-request-id': id } })).status, 200);
    await waitFor('the kept read in the access log', async () => server.log().split('\n').some((line) => line.includes(`access GET ${path} 200`) && line.includes(`id=${id}`) && line.includes('tenant=default')));
    const metrics = await server.api('GET', '/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    assert.match(metrics.text, /roost_http_requests_total\{[^}]*route="\/api\/agents\/:id"[^}]*owner="agents"[^}]*\} [1-9]/);
  });

  it('authenticates and rate limits a kept read as the whole front does', async () => {
    const path = `/api/agents/${agentIds[0]}`;
    const viewer = await member('viewer');
    const statuses = [];
    for (let i = 0; i < 9; i++) statuses.push((await server.api('GET', path, { key: viewer.apiKey })).status);
    assert.deepEqual(statuses.slice(0, 8), [200, 200, 200, 200, 200, 200, 200, 200], statuses.join(' '));
    const limited = await server.api('GET', path, { key: viewer.apiKey });
    assert.equal(limited.status, 429, `a key past its rate is refused, kept answer or not: ${statuses.join(' ')} ${limited.status}`);
    assert.equal((limited.body as { code: string }).code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);

    const revoked = await member('viewer');
    assert.equal((await server.api('GET', path, { key: revoked.apiKey })).status, 200);
    assert.equal((await server.api('GET', path, { key: revoked.apiKey })).status, 200);
    assert.equal((await server.api('DELETE', `/api/tenants/me/members/${revoked.keyHash}`)).status, 204);
    const refused = await server.api('GET', path, { key: revoked.apiKey });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((refused.body as { code: string }).code, 'INVALID_API_KEY');
  });

  it('never gives a kept answer to a caller the whole front would refuse', async () => {
    const path = `/api/agents/${agentIds[0]}`;
    assert.equal((await server.api('GET', path)).status, 200);
    const foreign = await server.api('GET', path, { headers: { origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.equal((foreign.body as { code: string }).code, 'FORBIDDEN_ORIGIN');
    assert.equal((await server.api('GET', path, { headers: { host: 'evil.example' } })).status, 403);
    assert.equal((await server.api('GET', path, { key: 'rk_not_a_key_0123456789' })).status, 403);
    // A caller behind an untrusted proxy is not the owner: it needs a key.
    const forwarded = await server.api('GET', path, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(forwarded.status, 401, forwarded.text);
    assert.equal((forwarded.body as { code: string }).code, 'AUTH_REQUIRED');
  });
});
