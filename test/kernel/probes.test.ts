// The health probes are answered before koa (kernel/http/probes.ts) when they are plain: a loopback caller
// with no key, no body, no Origin and no query. They must answer as the whole front does, keep what
// every request gets (request id, Vary, access log, metrics), and leave everything else to the front.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { schemaValidator } from '../../protocol/validate.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

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
