// GET /metrics: Prometheus text, read back with a Prometheus text parser after a generated load; route
// labels are patterns (never raw paths); only the instance owner or the metrics key may read it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestServer, type TestServer } from '../helpers/server.js';

const OWNER_KEY = 'rk_metrics_owner_key_0123456789abcdef';
const METRICS_KEY = 'metrics-scraper-secret-0123456789';

interface Family {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string }>;
}

describe('GET /metrics', () => {
  let server: TestServer;
  let workDir: string;
  let tenantKey: string;
  const scrape = async (key: string) => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    text = await res.text();
    return new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
  };
  let text = '';
  /** One sample line's value (the parser folds the series of a labelled histogram into one, so those are read here). */
  const sample = (line: string) => Number(new RegExp(`^${line.replace(/[{}().*+?^$|[\]\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
  const series = (families: Map<string, Family>, name: string, labels: Record<string, string>) =>
    families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: OWNER_KEY, ROOST_LOCAL_AUTH: 'required', ROOST_METRICS_KEY: METRICS_KEY } });
    workDir = await mkdtemp(join(tmpdir(), 'roost-metrics-'));
    tenantKey = (await server.api('POST', '/api/tenants/register', { body: { org: 'not-the-owner' } })).body.apiKey;
  });
  after(async () => {
    await server.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('counts a generated load per route pattern and owner, with latency histograms', async () => {
    const created = await server.api('POST', '/api/projects', { key: OWNER_KEY, body: { name: 'measured', workingDir: workDir } });
    assert.equal(created.status, 201);
    for (let i = 0; i < 20; i++) assert.equal((await server.api('GET', `/api/projects/${created.body.id}`, { key: OWNER_KEY })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await server.api('GET', `/api/no-such-route-${i}`, { key: OWNER_KEY })).status, 404);
    const socket = await server.ws({ key: OWNER_KEY });
    try {
      const families = await scrape(METRICS_KEY);
      const byId = series(families, 'roost_http_requests_total', { method: 'GET', route: '/api/projects/:id', owner: 'projects', status: '200' });
      assert.equal(Number(byId?.value), 20);
      assert.equal(Number(series(families, 'roost_http_requests_total', { route: 'unmatched', status: '404' })?.value), 3);
      assert.equal(Number(series(families, 'roost_http_requests_total', { method: 'POST', route: '/api/projects', status: '201' })?.value), 1);
      const labels = families.get('roost_http_requests_total')!.metrics.map((m) => m.labels!.route!);
      assert.ok(!labels.some((route) => route.includes(created.body.id) || route.includes('no-such-route')), `raw paths in labels: ${labels}`);
      assert.equal(families.get('roost_http_request_duration_seconds')?.type, 'HISTOGRAM');
      const latency = 'method="GET",route="/api/projects/:id",owner="projects"';
      assert.equal(sample(`roost_http_request_duration_seconds_count{${latency}}`), 20);
      assert.equal(sample(`roost_http_request_duration_seconds_bucket{le="+Inf",${latency}}`), 20);
      assert.ok(sample(`roost_http_request_duration_seconds_sum{${latency}}`) > 0);

      assert.equal(Number(series(families, 'roost_ws_clients', {})?.value), 1);
      assert.equal(Number(series(families, 'roost_extension_up', { extension: 'projects', state: 'running' })?.value), 1);
      assert.ok(Number(series(families, 'roost_extension_cpu_seconds', { extension: 'projects' })?.value) > 0);
      assert.ok(Number(series(families, 'roost_extension_resident_memory_bytes', { extension: 'projects' })?.value) > 10 * 1024 * 1024);
      const database = families.get('roost_database_size_bytes')!.metrics.find((m) => m.labels!.database === join(server.dataDir, 'kernel.sqlite') || m.labels!.database!.startsWith('postgres:'));
      assert.ok(Number(database?.value) > 0, JSON.stringify(families.get('roost_database_size_bytes')));
      assert.ok(Number(series(families, 'roost_kernel_process_cpu_user_seconds_total', {})?.value) > 0);
      assert.ok(families.has('roost_kernel_nodejs_eventloop_lag_p99_seconds'));
    } finally {
      await socket.close();
    }
  });

  it('serves the instance owner too', async () => {
    const families = await scrape(OWNER_KEY);
    assert.ok(families.has('roost_http_requests_total'));
  });

  it('refuses everyone else: no key, a wrong key, another tenant\'s owner; and takes only GET', async () => {
    const none = await server.api('GET', '/metrics');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'AUTH_REQUIRED');
    const wrong = await server.api('GET', '/metrics', { key: 'metrics-scraper-secret-0123456788' });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.code, 'INVALID_API_KEY');
    const tenant = await server.api('GET', '/metrics', { key: tenantKey });
    assert.equal(tenant.status, 403);
    assert.match(tenant.body.error, /instance owner.*ROOST_METRICS_KEY/);
    const post = await server.api('POST', '/metrics', { key: METRICS_KEY, body: {} });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });
});
