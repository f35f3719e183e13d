// The performance time series under a generated load: each endpoint reads back what the load did (and
// /metrics agrees), queue depths are sampled, trends between explicit bounds, the default regression
// windows are named, a latency regression is found on the live series, health snapshots say what went
// wrong, only the instance owner reads them, bad queries are refused clearly, and
// svc_check_health_trends answers agents of the instance only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentToken, callTool, createAgent, FIXTURES, mcpClient, registerTenant } from '../agents/support.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const SLEEP_ROUTE = 'GET /api/fx-probe/sleep';

type Health = { id: string; status: string; problems: Array<{ severity: string; subject: string; message: string }>; extensions: Array<{ name: string; state: string }> };

describe('performance', () => {
  let server: TestServer;
  const collect = async () => {
    const res = await server.api('POST', '/api/performance/collect');
    assert.equal(res.status, 200, res.text);
    return res.body as { collectedAt: string; samples: number; health: Health };
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
    const { health } = await collect();
    // 3 of fx-probe's 23 answers were 5xx: its health snapshot says so.
    assert.equal(health.status, 'degraded', JSON.stringify(health));
    assert.match(health.problems.find((p) => p.subject === 'owner:fx-probe')?.message ?? '', /^fx-probe answered 13% of its requests with a 5xx$/);
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
    assert.equal(snapshot.instances.length, 1);
    assert.equal(snapshot.instances[0].collectedAt, snapshot.collectedAt);

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

    // Between explicit bounds: only the points inside them.
    const all = trends.body.series[0].points as Array<{ at: string }>;
    const from = all[0]!.at;
    const to = new Date(Date.parse(all.at(-1)!.at) + 1).toISOString();
    const bounded = await server.api('GET', `/api/performance/trends?metric=http.request_rate&route=${encodeURIComponent(SLEEP_ROUTE)}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    assert.equal(bounded.status, 200, bounded.text);
    assert.deepEqual([bounded.body.from, bounded.body.to], [from, to]);
    assert.deepEqual(bounded.body.series[0].points, all);
    const before = await server.api('GET', `/api/performance/trends?metric=http.request_rate&route=${encodeURIComponent(SLEEP_ROUTE)}&from=${Date.parse(from) - 60_000}&to=${Date.parse(from) - 1}`);
    assert.deepEqual(before.body.series, []);

    const report = (await server.api('GET', '/api/performance/report')).body;
    assert.equal(report.instances.length, 1);
    assert.ok(report.instances[0].kernel.memoryBytes > 0);
    assert.ok(['healthy', 'degraded', 'critical'].includes(report.instances[0].health.status));
    assert.ok(report.busiestRoutes.some((r: { labels: Record<string, string> }) => r.labels.route === SLEEP_ROUTE));
    assert.ok(report.failingRoutes.some((r: { labels: Record<string, string> }) => r.labels.route === 'GET /api/fx-probe/malformed'));
    assert.ok(Array.isArray(report.regressions));
  });

  it('judges the last 15 minutes against the 24 hours before by default, and names both windows', async () => {
    const res = await server.api('GET', '/api/performance/regressions');
    assert.equal(res.status, 200, res.text);
    const { window, baseline, options } = res.body;
    assert.equal(Date.parse(window.to) - Date.parse(window.from), 15 * 60_000);
    assert.equal(baseline.to, window.from);
    assert.equal(Date.parse(baseline.to) - Date.parse(baseline.from), 24 * 3_600_000);
    assert.deepEqual(options, { k: 3, minChange: 0.2, minBaseline: 5 });
    // Every sample of this server is in its last 15 minutes: no baseline, so nothing is judged.
    assert.deepEqual(res.body.regressions, []);
    const custom = (await server.api('GET', '/api/performance/regressions?window=5m&baseline=1h')).body;
    assert.equal(Date.parse(custom.window.to) - Date.parse(custom.window.from), 5 * 60_000);
    assert.equal(Date.parse(custom.baseline.to) - Date.parse(custom.baseline.from), 3_600_000);
  });

  it('finds a latency regression of one route against its own history', async () => {
    for (let i = 0; i < 6; i++) {
      await load(4, 1);
      await collect();
    }
    // Whether the quick baseline itself shows no regression depends on how busy the machine is (a timing):
    // series.test.ts shows on constructed series that noise and a spike make none.
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

  it('stores health snapshots: the problems a collection shows, when they change, readable by id', async () => {
    const asked = await collect();
    assert.ok(asked.health, 'a collection asked for stores a snapshot');
    assert.equal((await server.api('GET', `/api/performance/health/${asked.health.id}`)).body.id, asked.health.id);

    // An extension that crashes past its budget is failed: critical.
    assert.equal((await loadFixture(server, 'fx-crashy')).status, 503);
    await waitFor('fx-crashy to be failed', async () => ((await server.api('GET', '/api/plugins')).body.plugins.find((p: { name: string }) => p.name === 'fx-crashy')?.state === 'failed' ? true : undefined), 30_000);
    const critical = (await collect()).health;
    assert.equal(critical.status, 'critical');
    assert.deepEqual(critical.problems.find((p) => p.subject === 'extension:fx-crashy'), { severity: 'critical', subject: 'extension:fx-crashy', message: 'extension fx-crashy failed: it crashed more often than its budget allows and is not restarted' });
    assert.deepEqual(critical.extensions.find((e) => e.name === 'fx-crashy'), { name: 'fx-crashy', state: 'failed' });
    assert.equal((await server.api('POST', '/api/plugins/fx-crashy/unload')).status, 200);

    const list = (await server.api('GET', '/api/performance/health?status=critical')).body;
    assert.equal(list.snapshots[0].status, 'critical');
    assert.ok(list.snapshots.every((h: { status: string }) => h.status === 'critical'));
    const newestFirst = (await server.api('GET', '/api/performance/health?limit=2')).body;
    assert.equal(newestFirst.snapshots.length, 2);
    assert.ok(Date.parse(newestFirst.snapshots[0].takenAt) >= Date.parse(newestFirst.snapshots[1].takenAt));
    assert.equal(newestFirst.hasMore, true);
    assert.equal((await server.api('GET', '/api/performance/health/nope')).status, 404);
    const bad = await server.api('GET', '/api/performance/health?status=fine');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /query.status must be one of healthy, degraded, critical/);
  });

  it('samples queue depths: the kernel\'s own queues and the ones extensions report', async () => {
    const reported = await server.api('POST', '/api/fx-probe/notify', { body: { message: { type: 'queue_depth', queue: 'jobs', depth: 4 } } });
    assert.equal(reported.status, 202);
    const sampled = await waitFor('the reported depth in a sample', async () => {
      await collect();
      const samples = (await server.api('GET', '/api/performance/snapshot?metric=queue.depth')).body.samples as Array<{ labels: Record<string, string>; value: number; unit: string }>;
      return samples.find((s) => s.labels.extension === 'fx-probe' && s.labels.queue === 'jobs');
    });
    assert.deepEqual([sampled.value, sampled.unit], [4, 'count']);
    const all = (await server.api('GET', '/api/performance/snapshot')).body.samples as Array<{ metric: string; labels: Record<string, string>; value: number }>;
    for (const metric of ['kernel.start_waiting_requests', 'kernel.pending_extension_requests']) {
      assert.ok(all.some((s) => s.metric === metric && s.labels.extension === '*'), `${metric} for all extensions`);
    }
    assert.equal(all.find((s) => s.metric === 'kernel.bus_backlog')?.value, 0);
    const queues = (await server.api('GET', '/api/performance/report')).body.queues as Array<{ metric: string }>;
    assert.ok(queues.some((q) => q.metric === 'queue.depth'));
  });

  it('answers only the instance owner, and refuses bad queries clearly', async () => {
    const other = await registerTenant(server, 'perf-other');
    for (const path of ['/api/performance/snapshot', '/api/performance/report', '/api/performance/metrics', '/api/performance/regressions', '/api/performance/trends?metric=ws.clients', '/api/performance/health', '/api/performance/health/x']) {
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

  it("gives svc_check_health_trends (not privileged) to the instance's agents, and to no other tenant's", async () => {
    const plain = await createAgent(server, undefined, { name: 'perf-plain' });
    const client = await mcpClient(server, await agentToken(server, undefined, plain.id));
    const answer = await callTool(client, 'svc_check_health_trends', { hours: 1 });
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /health over the last 1 h \(recent = the last 15 min, against the rest as baseline\)/);
    assert.match(answer.text, /http\.latency_p95_ms \{(instance=\S+ )?owner=fx-probe route=\*\}/);
    // Every sample of this test is in its last 15 minutes: nothing is left for a baseline.
    assert.match(answer.text, /^no regressions in the last 15 min$/m);
    // The last sample of each series against the ones before: the slow load of the test before.
    const judged = await callTool(client, 'svc_check_health_trends', { hours: 1, metric: 'http.latency_p95_ms', recent: 1 });
    assert.match(judged.text, /^\d+ regression\(s\) in the last 1 sample of each series:$/m, judged.text);
    assert.match(judged.text, /^- http\.latency_p95_ms \{[^}]*"owner":"fx-probe","route":"GET \/api\/fx-probe\/sleep"\}: \d+ ms now against [\d.]+ before/m, judged.text);
    assert.match((await callTool(client, 'svc_check_health_trends', { metric: 'nope' })).text, /"nope" is not a metric/);
    const badArgs = await callTool(client, 'svc_check_health_trends', { hours: 0 });
    assert.equal(badArgs.isError, true);

    const restart = await callTool(client, 'svc_restart_server', { reason: 'not granted' });
    assert.equal(restart.isError, true);
    assert.match(restart.text, /privileged/, 'svc_restart_server still needs its grant');

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
