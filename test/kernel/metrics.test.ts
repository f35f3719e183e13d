// GET /metrics: Prometheus text, read back with a Prometheus text parser after a generated load; route
// labels are patterns (never raw paths); only the instance owner or the metrics key may read it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { RouteTable } from '../../kernel/http/route-table.js';
import { loadFixture, waitForLog } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** Prometheus' own linter (Debian's prometheus package; .ci/run installs it). */
const promtool = spawnSync('promtool', ['--version']).status === 0;
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

  it('counts a request refused before routing (401, a browser-guard 403) under the route it named', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    assert.equal((await server.api('GET', `/api/projects/${id}`)).status, 401);
    const guarded = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/operational-mode`, { headers: { host: 'evil.example', authorization: `Bearer ${OWNER_KEY}` } }, (res) => resolve(res.resume().statusCode!));
      req.once('error', reject).end();
    });
    assert.equal(guarded, 403);
    const families = await scrape(METRICS_KEY);
    assert.equal(Number(series(families, 'roost_http_requests_total', { method: 'GET', route: '/api/projects/:id', owner: 'projects', status: '401' })?.value), 1);
    assert.equal(Number(series(families, 'roost_http_requests_total', { method: 'GET', route: '/api/operational-mode', owner: 'kernel', status: '403' })?.value), 1);
    assert.equal(series(families, 'roost_http_requests_total', { route: 'unmatched', status: '401' }), undefined);
  });

  it('reports queue depths: requests waiting for a start, requests in flight, and the queues an extension reports', async () => {
    assert.equal((await loadFixture(server, 'fx-probe', OWNER_KEY)).status, 201);
    const notify = (message: Record<string, unknown>) => server.api('POST', '/api/fx-probe/notify', { key: OWNER_KEY, body: { message } });
    const gauge = async (name: string, labels: Record<string, string>) => Number(series(await scrape(METRICS_KEY), name, labels)?.value);
    assert.equal((await notify({ type: 'queue_depth', queue: 'jobs', depth: 7 })).status, 202);
    await waitFor('the reported depth in /metrics', async () => ((await gauge('roost_extension_queue_depth', { extension: 'fx-probe', queue: 'jobs' })) === 7 ? true : undefined));
    // Refused with a logged warning, nothing changed: a bad name, a negative depth, a 21st queue.
    await notify({ type: 'queue_depth', queue: 'Bad Name', depth: 1 });
    await notify({ type: 'queue_depth', queue: 'jobs', depth: -1 });
    for (let i = 0; i < 20; i++) await notify({ type: 'queue_depth', queue: `q${i}`, depth: i });
    await waitForLog(server, /\[fx-probe\] protocol: .*queue_depth.*already reports 20 queues/);
    await waitForLog(server, /\[fx-probe\] protocol: .*queue_depth.*queue must match pattern/);
    const families = await scrape(METRICS_KEY);
    const reported = families.get('roost_extension_queue_depth')!.metrics.filter((m) => m.labels!.extension === 'fx-probe');
    assert.equal(reported.length, 20);
    assert.equal(Number(series(families, 'roost_extension_queue_depth', { extension: 'fx-probe', queue: 'jobs' })?.value), 7);
    assert.equal(series(families, 'roost_extension_queue_depth', { queue: 'q19' }), undefined);
    assert.equal(Number(series(families, 'roost_bus_backlog', {})?.value), 0);

    const sleeping = server.api('GET', '/api/fx-probe/sleep?ms=1500', { key: OWNER_KEY });
    await waitFor('the request in flight', async () => ((await gauge('roost_extension_pending_requests', { extension: 'fx-probe' })) >= 1 ? true : undefined));
    assert.equal((await sleeping).status, 200);

    // fx-noready never says ready: a request to it waits for its start, and is counted while it does.
    assert.equal((await loadFixture(server, 'fx-noready', OWNER_KEY)).status, 503);
    const waiting = server.api('GET', '/api/fx-noready/anything', { key: OWNER_KEY });
    await waitFor('the request waiting for the start', async () => ((await gauge('roost_extension_start_waiting_requests', { extension: 'fx-noready' })) === 1 ? true : undefined));
    assert.equal((await waiting).status, 503);
    assert.equal(await gauge('roost_extension_start_waiting_requests', { extension: 'fx-noready' }), 0);
    assert.equal((await server.api('POST', '/api/plugins/fx-noready/unload', { key: OWNER_KEY })).status, 200);
  });

  it('keeps the event-loop delay windows of a scrape and of a sample (system_metrics) apart', async () => {
    assert.equal((await server.api('POST', '/api/plugins/fx-probe/grant', { key: OWNER_KEY, body: { capability: 'metrics' } })).status, 200);
    const systemMetrics = async () => {
      const res = await server.api('POST', '/api/fx-probe/host', { key: OWNER_KEY, body: { message: { type: 'system_metrics' } } });
      assert.equal(res.status, 200, res.text);
      return res.body.value as Array<{ name: string; values: Array<{ value: number }> }>;
    };
    const sampleP99 = (metrics: Array<{ name: string; values: Array<{ value: number }> }>) => metrics.find((m) => m.name === 'roost_sample_event_loop_delay_p99_seconds')!.values[0]!.value;
    // Some time for each window to hold event-loop samples (the monitor's resolution is 10 ms).
    const letTimePass = () => new Promise((resolve) => setTimeout(resolve, 100));

    await systemMetrics();
    await letTimePass();
    await scrape(METRICS_KEY);
    const afterScrape = await systemMetrics();
    assert.ok(!afterScrape.some((m) => m.name.startsWith('roost_kernel_nodejs_eventloop_lag')), 'a sample never reads (and resets) the scrape\'s histogram');
    assert.ok(sampleP99(afterScrape) > 0, 'a scrape did not empty the sample\'s window');

    await scrape(METRICS_KEY);
    await letTimePass();
    await systemMetrics();
    await scrape(METRICS_KEY);
    assert.ok(sample('roost_kernel_nodejs_eventloop_lag_p99_seconds') > 0, 'a sample did not empty the scrape\'s window');
  });

  it("is the prometheus extension's route: counted under it, and the metrics key opens no other route", async () => {
    await scrape(METRICS_KEY);
    const families = await scrape(METRICS_KEY);
    assert.ok(Number(series(families, 'roost_http_requests_total', { method: 'GET', route: '/metrics', owner: 'prometheus', status: '200' })?.value) >= 1);
    for (const path of ['/api/projects', '/api/openapi.json', '/api/health']) {
      const res = await server.api('GET', path, { key: METRICS_KEY });
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.body.code, 'INVALID_API_KEY');
    }
  });

  it('refuses a machine-keyed route at a path the kernel serves (its key would reach a kernel route)', () => {
    const kernelServes = (method: string, path: string) => method === 'POST' && path === '/api/backup';
    const decl = { method: 'GET' as const, path: '/api/backup', public: false, raw: false, internal: false, machineKey: 'ROOST_METRICS_KEY' };
    assert.throws(() => new RouteTable().addAll('x', [decl], kernelServes), /x declares \/api\/backup with a machine key, and the kernel serves that path/);
    assert.doesNotThrow(() => new RouteTable().addAll('x', [{ ...decl, machineKey: undefined }], kernelServes));
  });

  it('passes promtool check metrics', { skip: !promtool && 'promtool is not installed (Debian package prometheus)' }, async () => {
    await scrape(METRICS_KEY);
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
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
