// The performance time series under a generated load: each endpoint reads back what the load did (and
// /metrics agrees), a latency regression is found on the live series, only the instance owner reads
// them, bad queries are refused clearly, and svc_check_health_trends answers agents of the instance only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentToken, callTool, createAgent, FIXTURES, mcpClient, registerTenant } from '../agents/support.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SLEEP_ROUTE = 'GET /api/fx-probe/sleep';

describe('performance', () => {
  let server: TestServer;
  const collect = async () => {
    const res = await server.api('POST', '/api/performance/collect');
    assert.equal(res.status, 200, res.text);
    return res.body as { collectedAt: string; samples: number };
  };
  const load = async (count: number, ms: number) => {
    for (let i = 0; i < count; i++) assert.equal((await server.api('GET', `/api/fx-probe/sleep?ms=${ms}`)).status, 200);
  };
  const sample = (samples: Array<{ metric: string; labels: Record<string, string>; value: number }>, metric: string, route: string) =>
    samples.find((s) => s.metric === metric && s.labels.route === route);

  before(async () => {
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES } });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(() => server?.cleanup());

  it('records request rate, errors and latency per route and per extension, the kernel and the extensions', async () => {
    await collect();
    await load(20, 1);
    for (let i = 0; i < 3; i++) assert.equal((await server.api('GET', '/api/fx-probe/malformed')).status, 502);
    await collect();
    const snapshot = (await server.api('GET', '/api/performance/snapshot')).body;
    assert.ok(Date.parse(snapshot.collectedAt) > 0);
    const rate = sample(snapshot.samples, 'http.request_rate', SLEEP_ROUTE);
    assert.ok(rate && rate.value > 0, JSON.stringify(snapshot.samples.slice(0, 5)));
    assert.equal(rate.labels.owner, 'fx-probe');
    assert.equal(rate.unit, 'req/s');
    assert.equal(sample(snapshot.samples, 'http.error_rate', SLEEP_ROUTE)?.value, 0);
    assert.equal(sample(snapshot.samples, 'http.error_rate', 'GET /api/fx-probe/malformed')?.value, 1);
    const p50 = sample(snapshot.samples, 'http.latency_p50_ms', SLEEP_ROUTE);
    assert.ok(p50 && p50.value > 0 && p50.value < 1000);
    const owner = snapshot.samples.find((s: { metric: string; labels: Record<string, string> }) => s.metric === 'http.error_rate' && s.labels.route === '*' && s.labels.owner === 'fx-probe');
    assert.ok(owner && owner.value > 0 && owner.value < 1, 'the extension as a whole: 3 errors of 23');
    for (const metric of ['kernel.memory_bytes', 'kernel.cpu_percent', 'kernel.event_loop_delay_p99_ms', 'ws.clients', 'database.size_bytes']) {
      assert.ok(snapshot.samples.some((s: { metric: string }) => s.metric === metric), metric);
    }
    const fxMemory = snapshot.samples.find((s: { metric: string; labels: Record<string, string> }) => s.metric === 'extension.memory_bytes' && s.labels.extension === 'fx-probe');
    assert.ok(fxMemory && fxMemory.value > 1_000_000);

    // /metrics counted the same requests.
    const prom = await (await fetch(`${server.url}/metrics`)).text();
    const counted = [...prom.matchAll(/^roost_http_requests_total\{[^}]*route="\/api\/fx-probe\/sleep"[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    assert.equal(counted, 20);
  });

  it('serves trends, the metric names and a report', async () => {
    const trends = await server.api('GET', `/api/performance/trends?metric=http.request_rate&route=${encodeURIComponent(SLEEP_ROUTE)}`);
    assert.equal(trends.status, 200, trends.text);
    assert.equal(trends.body.series.length, 1);
    assert.ok(trends.body.series[0].points.length >= 1);
    assert.deepEqual(Object.keys(trends.body.series[0].points[0]).sort(), ['at', 'value']);

    const metrics = (await server.api('GET', '/api/performance/metrics')).body.metrics as Array<{ name: string; recorded: boolean; unit: string }>;
    assert.ok(metrics.find((m) => m.name === 'http.latency_p95_ms')?.recorded);
    assert.equal(metrics.find((m) => m.name === 'kernel.memory_bytes')?.unit, 'bytes');

    const report = (await server.api('GET', '/api/performance/report')).body;
    assert.ok(report.kernel.memoryBytes > 0);
    assert.ok(report.busiestRoutes.some((r: { labels: Record<string, string> }) => r.labels.route === SLEEP_ROUTE));
    assert.ok(report.failingRoutes.some((r: { labels: Record<string, string> }) => r.labels.route === 'GET /api/fx-probe/malformed'));
    assert.ok(Array.isArray(report.regressions));
  });

  it('finds a latency regression of one route against its own history', async () => {
    for (let i = 0; i < 6; i++) {
      await load(4, 1);
      await collect();
    }
    const before = (await server.api('GET', '/api/performance/regressions?recent=1')).body;
    assert.equal(before.regressions.filter((r: { labels: Record<string, string> }) => r.labels.route === SLEEP_ROUTE).length, 0, JSON.stringify(before.regressions));
    await load(4, 300);
    await collect();
    const after = (await server.api('GET', `/api/performance/regressions?recent=1&route=${encodeURIComponent(SLEEP_ROUTE)}`)).body;
    const p95 = after.regressions.find((r: { metric: string }) => r.metric === 'http.latency_p95_ms');
    assert.ok(p95, JSON.stringify(after));
    assert.ok(p95.recent.median >= 250, JSON.stringify(p95));
    assert.ok(p95.baseline.median < 100);
    assert.ok(p95.baseline.points >= 5);
    assert.ok(p95.recent.median > p95.threshold);
  });

  it('answers only the instance owner, and refuses bad queries clearly', async () => {
    const other = await registerTenant(server, 'perf-other');
    for (const path of ['/api/performance/snapshot', '/api/performance/report', '/api/performance/metrics', '/api/performance/regressions', '/api/performance/trends?metric=ws.clients']) {
      const res = await server.api('GET', path, { key: other.owner });
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.match(res.body.error, /only the instance owner/);
    }
    assert.equal((await server.api('POST', '/api/performance/collect', { key: other.owner })).status, 403);
    const bad = async (path: string, pattern: RegExp) => {
      const res = await server.api('GET', path);
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error, pattern);
    };
    await bad('/api/performance/trends', /query.metric is required/);
    await bad('/api/performance/trends?metric=nope', /"nope" is not a metric/);
    await bad('/api/performance/trends?metric=ws.clients&from=2026-01-02&to=2026-01-01', /from must be before/);
    await bad('/api/performance/trends?metric=ws.clients&from=yesterday', /ISO 8601/);
    await bad('/api/performance/regressions?window=forever', /duration such as 90s/);
    await bad('/api/performance/regressions?k=-1', /query.k must be a number/);
  });

  it('gives svc_check_health_trends to agents of the instance that hold the grant, and to no one else', async () => {
    const granted = await createAgent(server, undefined, { name: 'perf-watcher', mcp_tool_permissions: ['svc_check_health_trends'] });
    const plain = await createAgent(server, undefined, { name: 'perf-plain' });
    const client = await mcpClient(server, await agentToken(server, undefined, granted.id));
    const answer = await callTool(client, 'svc_check_health_trends', { hours: 1 });
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /health over the last 1 h/);
    assert.match(answer.text, /http\.latency_p95_ms \{owner=fx-probe route=\*\}/);
    assert.match(answer.text, /regression/);
    const badArgs = await callTool(client, 'svc_check_health_trends', { hours: 0 });
    assert.equal(badArgs.isError, true);

    const plainClient = await mcpClient(server, await agentToken(server, undefined, plain.id));
    assert.match((await callTool(plainClient, 'svc_check_health_trends', {})).text, /privileged/);

    const other = await registerTenant(server, 'perf-tools-other');
    const foreign = await createAgent(server, other.owner, { name: 'foreign', mcp_tool_permissions: ['svc_check_health_trends', 'svc_restart_server'] });
    const foreignClient = await mcpClient(server, await agentToken(server, other.owner, foreign.id));
    for (const [tool, args] of [['svc_check_health_trends', {}], ['svc_restart_server', { reason: 'try' }]] as const) {
      const res = await callTool(foreignClient, tool, args);
      assert.equal(res.isError, true);
      assert.match(res.text, /only agents of the instance's own tenant/);
    }
  });
});
