// When a schedule is due, on its own: cron in a time zone (daylight saving included), intervals on a
// grid from their anchor, and the refusals a schedule's timing can get.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTiming, nextRun, recentRuns, type Timing } from '../../extensions/schedules/timing.js';

const cron = (expression: string, timezone = 'UTC'): Timing => ({ cron: expression, timezone, intervalSeconds: null });
const every = (seconds: number): Timing => ({ cron: null, timezone: 'UTC', intervalSeconds: seconds });
const at = (iso: string) => new Date(iso);

describe('schedule timing', () => {
  it('finds the next cron run in the schedule\'s time zone', () => {
    assert.equal(nextRun(cron('0 9 * * *', 'Europe/Berlin'), at('2026-01-10T08:30:00Z'), at('2026-01-01T00:00:00Z'))?.toISOString(), '2026-01-11T08:00:00.000Z');
    assert.equal(nextRun(cron('*/15 * * * *'), at('2026-01-10T08:30:00Z'), at('2026-01-01T00:00:00Z'))?.toISOString(), '2026-01-10T08:45:00.000Z');
  });

  it('runs a local time that daylight saving skips at the next one that exists, and a repeated one once', () => {
    // Europe/Berlin: 2026-03-29 02:00 → 03:00 local (01:00 UTC); 2026-10-25 03:00 → 02:00 local (01:00 UTC).
    assert.equal(nextRun(cron('30 2 * * *', 'Europe/Berlin'), at('2026-03-28T23:00:00Z'), at('2026-01-01T00:00:00Z'))?.toISOString(), '2026-03-29T01:00:00.000Z');
    const autumn = recentRuns(cron('30 2 * * *', 'Europe/Berlin'), at('2026-10-24T00:00:00Z'), at('2026-10-25T12:00:00Z'), at('2026-01-01T00:00:00Z'), 5);
    assert.deepEqual(autumn.map((d) => d.toISOString()), ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z']);
  });

  it('counts an interval\'s runs on the grid of its anchor', () => {
    const anchor = at('2026-01-01T00:00:00Z');
    assert.equal(nextRun(every(600), at('2026-01-01T00:25:00Z'), anchor)?.toISOString(), '2026-01-01T00:30:00.000Z');
    assert.equal(nextRun(every(600), at('2026-01-01T00:30:00Z'), anchor)?.toISOString(), '2026-01-01T00:40:00.000Z', 'strictly after');
    assert.equal(nextRun(every(600), at('2025-12-31T00:00:00Z'), anchor)?.toISOString(), anchor.toISOString(), 'before the anchor: the anchor');
    const runs = recentRuns(every(600), at('2026-01-01T00:10:00Z'), at('2026-01-01T00:45:00Z'), anchor, 10);
    assert.deepEqual(runs.map((d) => d.toISOString().slice(11, 16)), ['00:10', '00:20', '00:30', '00:40']);
    assert.deepEqual(recentRuns(every(600), at('2026-01-02T00:00:00Z'), at('2026-01-01T00:00:00Z'), anchor, 3), []);
  });

  it('refuses a bad zone, a bad expression, both or neither, and runs closer than the minimum', () => {
    const from = at('2026-01-01T00:00:00Z');
    assert.doesNotThrow(() => checkTiming(cron('0 * * * *', 'America/New_York'), 60, from));
    assert.doesNotThrow(() => checkTiming(every(60), 60, from));
    const refusals: Array<[Timing, RegExp]> = [
      [{ cron: '* * * * *', timezone: 'UTC', intervalSeconds: 60 }, /not both/],
      [{ cron: null, timezone: 'UTC', intervalSeconds: null }, /not both/],
      [cron('0 * * * *', 'Mars/Olympus'), /not an IANA time zone/],
      [cron('61 * * * *'), /not a valid cron expression/],
      [cron('* * * * *'), /runs 60 s apart; the minimum interval is 300 s/],
      [every(30), /at least 300/],
    ];
    for (const [timing, message] of refusals) {
      assert.throws(() => checkTiming(timing, 300, from), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR' && message.test(err.message), JSON.stringify(timing));
    }
    // Gaps vary: a cron that runs twice close together once an hour is refused too.
    assert.throws(() => checkTiming(cron('0,1 * * * *'), 300, from), /runs 60 s apart/);
  });
});
