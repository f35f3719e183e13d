// Usage: anomaly flags (median + k·MAD) on a constructed history, the usage routes over real runs, and a
// flag raised by a real session whose cost (from the fake Anthropic server's token usage) jumps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { baseline, flag, K, MIN_HISTORY } from '../../extensions/schedules/anomaly.js';
import type { TestServer } from '../helpers/server.js';
import { startHarness } from '../sessions/harness.js';
import { CLOCK_ENV, createSchedule, executions, NOWHERE, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('anomaly flags on a constructed history', () => {
  const costs = [1000, 1100, 950, 1050, 1000, 980, 1020, 30_000 /* one past outlier */, 1010, 990];

  it('flags a run that costs far more than its history, robustly to a past outlier', () => {
    const b = baseline(costs, 1)!;
    assert.equal(b.median, 1005);
    assert.ok(b.threshold < 2000, `one past outlier must not inflate the threshold (${b.threshold})`);
    assert.ok(flag('cost', 5000, costs, 1), 'five times the usual cost is flagged');
    assert.equal(flag('cost', 1150, costs, 1), null, 'an ordinary run is not');
    const f = flag('duration', 10_000, [900, 1000, 1100, 1000, 950, 1050], 100)!;
    assert.equal(f.metric, 'duration');
    assert.equal(f.threshold, 1000 + K * Math.max(f.mad, 100, 100));
  });

  it('flags nothing with too little history, and not noise over a perfectly steady one', () => {
    assert.equal(baseline(costs.slice(0, MIN_HISTORY - 1), 1), null);
    assert.equal(flag('cost', 1_000_000, costs.slice(0, MIN_HISTORY - 1), 1), null);
    const steady = [500, 500, 500, 500, 500, 500];
    assert.equal(flag('cost', 520, steady, 1), null, 'the floor on the spread (10 % of the median) absorbs small noise');
    assert.ok(flag('cost', 800, steady, 1));
  });
});

describe('usage routes', () => {
  let server: TestServer;
  let good: any;
  let bad: any;
  before(async () => {
    server = await startScheduleServer();
    await setClock(server, { to: '2026-06-01T00:00:00.000Z' });
    good = await createSchedule(server, { name: 'good', intervalSeconds: 43_200, action: READ_PROJECTS });
    bad = await createSchedule(server, { name: 'bad', intervalSeconds: 43_200, action: NOWHERE });
    for (let i = 1; i <= 3; i++) {
      await setClock(server, { advanceMs: 43_200_000 });
      await settled(server, good.id, i);
      await settled(server, bad.id, i);
    }
  });
  after(() => server.cleanup());

  it('summarises runs, failures, cost and duration per schedule, per day and per schedule in detail', async () => {
    const summary = await server.api('GET', '/api/usage/summary?days=30');
    assert.equal(summary.status, 200, summary.text);
    assert.equal(summary.body.totals.runs, 6);
    assert.equal(summary.body.totals.failed, 3);
    const mine = summary.body.schedules.find((s: any) => s.scheduleId === good.id);
    assert.deepEqual([mine.runs, mine.succeeded, mine.failed, mine.cost, mine.credits, mine.anomalous], [3, 3, 0, 0, 0, false]);
    assert.equal(typeof mine.avgDurationMs, 'number');
    const daily = await server.api('GET', `/api/usage/daily?scheduleId=${bad.id}`);
    assert.deepEqual(daily.body.daily.map((d: any) => [d.date, d.runs, d.failed]), [['2026-06-01', 1, 1], ['2026-06-02', 2, 2]]);
    const detail = await server.api('GET', `/api/usage/schedule/${good.id}`);
    assert.equal(detail.body.runs.length, 3);
    assert.equal(detail.body.totals.runs, 3);
    const anomalies = await server.api('GET', '/api/usage/anomalies');
    assert.equal(anomalies.status, 200);
    assert.ok(Array.isArray(anomalies.body.anomalies));
    assert.equal((await server.api('GET', '/api/usage/summary?days=0')).status, 400);
    assert.equal((await server.api('GET', '/api/usage/schedule/nope')).status, 404);
  });
});

describe('anomaly flags over real session runs', () => {
  it('flags the run whose session cost far more than the runs before it', async () => {
    const cheap = { text: 'ok', usage: { input_tokens: 10, output_tokens: 10 } };
    const h = await startHarness({ anthropic: [cheap, cheap, cheap, cheap, cheap, cheap, { text: 'a very long answer', usage: { input_tokens: 10, output_tokens: 5000 } }], env: CLOCK_ENV });
    try {
      await setClock(h.server, { to: '2026-07-01T00:00:00.000Z' });
      const agent = await h.agent();
      // Daily: the last run is the only one of the last day, and is still compared with the six before.
      const s = await createSchedule(h.server, { name: 'digest', intervalSeconds: 86_400, action: { type: 'session', agentId: agent.id, prompt: 'Summarise.' } });
      for (let i = 1; i <= 7; i++) {
        await setClock(h.server, { advanceMs: 86_400_000 });
        await settled(h.server, s.id, i, ['succeeded']);
      }
      const runs = await executions(h.server, s.id);
      assert.ok(runs.every((r) => r.result.status === 'stopped'), 'each session is stopped once it answered');
      const costs = runs.map((r) => r.cost).reverse();
      assert.ok(costs.slice(0, 6).every((c) => c > 0 && c === costs[0]) && costs[6] > 10 * costs[0], `costs ${costs}`);
      const summary = (await h.server.api('GET', '/api/usage/summary')).body.schedules.find((x: any) => x.scheduleId === s.id);
      assert.equal(summary.anomalous, true);
      // Its cost is flagged (its duration may be too, on a busy machine: a timing is not asserted).
      assert.ok(summary.latestFlags.some((f: any) => f.metric === 'cost'), JSON.stringify(summary.latestFlags));
      assert.equal(summary.cost, costs.reduce((a, b) => a + b, 0));
      const anomalies = (await h.server.api('GET', '/api/usage/anomalies')).body.anomalies;
      assert.deepEqual(anomalies.filter((x: any) => x.flags.some((f: any) => f.metric === 'cost')).map((x: any) => x.executionId), [runs[0].id]);
      await setClock(h.server, { advanceMs: 3_600_000 }); // the run a day before the last leaves the 1-day window
      const lastDay = (await h.server.api('GET', '/api/usage/summary?days=1')).body.schedules.find((x: any) => x.scheduleId === s.id);
      assert.equal(lastDay.runs, 1);
      assert.equal(lastDay.anomalous, true, 'the runs before the window are its history');
      assert.deepEqual((await h.server.api('GET', '/api/usage/anomalies?days=1')).body.anomalies.map((x: any) => x.executionId), [runs[0].id]);
    } finally {
      await h.close();
    }
  });
});
