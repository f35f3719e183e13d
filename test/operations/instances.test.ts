// Two `roost serve` processes on one PostgreSQL database: each samples its own kernel under an
// `instance` label, the snapshot and the report show both, one of them compacts the shared table (no
// hour rolled up twice), and the exams of one are not failed by the start of the other — only once
// their instance is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processTree } from '../../lib/proc.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { withClient } from '../storage/support.js';

after(() => stopSharedPostgres());

const HOUR = 3_600_000;

describe('operations and exams with two instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let anthropic: FakeAnthropic;
  let databaseUrl: string;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));

  before(async () => {
    // An examinee that holds its answer until the test releases it, so an exam stays running meanwhile.
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: async () => (await released, 'PINEAPPLE') });
    databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = {
      ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url,
      // Compact with every collection; exams beat every 300 ms, so a run is stale after 900 ms.
      ROOST_EXT_OPERATIONS_COMPACT_MINUTES: '0', ROOST_EXT_EXAMS_HEARTBEAT_MS: '300',
    };
    [a, b] = await Promise.all([startTestServer({ databaseUrl, env }), startTestServer({ databaseUrl, env })]);
  });
  after(async () => {
    release();
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await anthropic?.close();
  });

  const instanceOf = (server: TestServer) => `:${server.port}`;

  it('labels each instance\'s samples, and shows both in the snapshot and the report', async () => {
    for (const server of [a, b]) assert.equal((await server.api('POST', '/api/performance/collect')).status, 200);
    const snapshot = (await a.api('GET', '/api/performance/snapshot?metric=kernel.memory_bytes')).body;
    assert.equal(snapshot.instances.length, 2, JSON.stringify(snapshot.instances));
    for (const server of [a, b]) {
      assert.ok(snapshot.instances.some((i: { instance: string }) => i.instance.endsWith(instanceOf(server))));
      assert.ok(snapshot.samples.some((s: { labels: Record<string, string> }) => s.labels.instance?.endsWith(instanceOf(server))), `a sample of ${server.port}`);
    }
    const report = (await b.api('GET', '/api/performance/report')).body;
    assert.equal(report.instances.length, 2);
    for (const instance of report.instances) {
      assert.ok(instance.kernel.memoryBytes > 0);
      assert.equal(instance.health.instance, instance.instance, 'each with its own health snapshot');
    }
    const health = (await a.api('GET', `/api/performance/health?instance=${encodeURIComponent(report.instances[0].instance)}`)).body.snapshots;
    assert.ok(health.length > 0 && health.every((h: { instance: string }) => h.instance === report.instances[0].instance));
  });

  it('compacts the shared table once: one hour row per series, instance and hour, whoever collects', async () => {
    const instances = ((await a.api('GET', '/api/performance/snapshot')).body.instances as Array<{ instance: string }>).map((i) => i.instance);
    const old = Date.now() - 60 * HOUR;
    await withClient(databaseUrl, async (client) => {
      for (const instance of instances) {
        for (let i = 0; i < 120; i++) {
          await client.query("INSERT INTO roost_ext_operations.perf_samples (instance, metric, labels, at, resolution, value, min, max, count) VALUES ($1, 'ws.clients', $2, $3, 'raw', $4, $4, $4, 1)", [instance, JSON.stringify({ instance }), old + i * 60_000, i]);
        }
      }
    });
    const collects = await Promise.all([a, b, a, b].map((server) => server.api('POST', '/api/performance/collect')));
    assert.deepEqual(collects.map((c) => c.status), [200, 200, 200, 200]);
    const rows = await withClient(databaseUrl, async (client) => (await client.query("SELECT instance, at, count FROM roost_ext_operations.perf_samples WHERE metric = 'ws.clients' AND resolution = 'hour' AND at < $1 ORDER BY instance, at", [Date.now() - 48 * HOUR])).rows);
    // The hours from the first sample's to the last's (119 minutes later), both counted.
    const hours = Math.floor((old + 119 * 60_000) / HOUR) - Math.floor(old / HOUR) + 1;
    assert.equal(rows.length, instances.length * hours, JSON.stringify(rows));
    assert.equal(rows.reduce((sum, r) => sum + Number(r.count), 0), instances.length * 120, 'every raw sample in exactly one hour');
    const raw = await withClient(databaseUrl, async (client) => (await client.query("SELECT count(*) AS n FROM roost_ext_operations.perf_samples WHERE metric = 'ws.clients' AND resolution = 'raw' AND at < $1", [Date.now() - 48 * HOUR])).rows[0].n);
    assert.equal(Number(raw), 0);
  });

  it("leaves an exam of one instance running when the other starts, and fails it once its instance is gone", async () => {
    const agent = (await a.api('POST', '/api/agents', { body: { name: 'held-examinee', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' } })).body;
    const started = await a.api('POST', '/api/exam/run', { body: { agentId: agent.id, categories: ['instructions'] } });
    assert.equal(started.status, 202, started.text);
    await waitFor('the examinee to be asked', async () => (anthropic.requests.length > 0 ? true : undefined), 30_000);

    // B's exams extension starts now (its setup looks for interrupted runs) and beats for a while.
    assert.equal((await b.api('GET', '/api/exam/runs')).status, 200);
    await waitFor('B to beat a few times', async () => ((await b.api('GET', `/api/exam/runs/${started.body.id}`)).body.status === 'running' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // past the 900 ms a stale run needs
    assert.equal((await b.api('GET', `/api/exam/runs/${started.body.id}`)).body.status, 'running', "A beats for its run: B leaves it alone");

    // A dies at once, with its extensions: nothing of it is left to record anything.
    for (const pid of processTree(a.process.pid!).reverse()) process.kill(pid, 'SIGKILL');
    const failed = await waitFor('B to fail the run A left', async () => {
      const run = (await b.api('GET', `/api/exam/runs/${started.body.id}`)).body;
      return run.status === 'running' ? undefined : run;
    }, 30_000);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /the server stopped during the exam; run it again/);
  });
});
