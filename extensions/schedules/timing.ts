// When a schedule is due: croner reads the cron expression in the schedule's time zone (daylight
// saving changes included: a local time that does not exist runs at the next one that does, a repeated
// one runs once); an interval counts whole periods from its anchor.
import { Cron } from 'croner';
import { validationError } from '../../protocol/errors.js';

export interface Timing {
  cron: string | null;
  timezone: string;
  intervalSeconds: number | null;
}

/** How many future runs the minimum-gap check looks at (a cron's gaps vary over a day, a week, a year). */
const GAP_SAMPLE = 60;

function cronOf(timing: Timing): Cron {
  return new Cron(timing.cron!, { timezone: timing.timezone, paused: true });
}

/** Throws a VALIDATION_ERROR naming what is wrong: a bad expression or zone, runs closer than the minimum. */
export function checkTiming(timing: Timing, minIntervalSeconds: number, from: Date): void {
  if ((timing.cron === null) === (timing.intervalSeconds === null)) throw validationError('give either cron (with an optional timezone) or intervalSeconds, not both');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timing.timezone });
  } catch {
    throw validationError(`body.timezone "${timing.timezone}" is not an IANA time zone (for example Europe/Berlin)`);
  }
  if (timing.intervalSeconds !== null) {
    if (timing.intervalSeconds < minIntervalSeconds) throw validationError(`body.intervalSeconds must be at least ${minIntervalSeconds} (the minimum interval)`);
    return;
  }
  let runs: Date[];
  try {
    runs = cronOf(timing).nextRuns(GAP_SAMPLE, from);
  } catch (err) {
    throw validationError(`body.cron "${timing.cron}" is not a valid cron expression: ${(err as Error).message}`);
  }
  if (runs.length === 0) throw validationError(`body.cron "${timing.cron}" never runs`);
  for (let i = 1; i < runs.length; i++) {
    const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000;
    if (gap < minIntervalSeconds) throw validationError(`body.cron "${timing.cron}" runs ${gap} s apart; the minimum interval is ${minIntervalSeconds} s`);
  }
}

/** The first run strictly after `after`; for an interval, on the grid anchored at `anchor`. */
export function nextRun(timing: Timing, after: Date, anchor: Date): Date | null {
  if (timing.cron !== null) return cronOf(timing).nextRun(after);
  const period = timing.intervalSeconds! * 1000;
  const elapsed = after.getTime() - anchor.getTime();
  const periods = elapsed < 0 ? 0 : Math.floor(elapsed / period) + 1;
  return new Date(anchor.getTime() + periods * period);
}

/** The latest `n` runs from `first` to `now` (both included), oldest first. */
export function recentRuns(timing: Timing, first: Date, now: Date, anchor: Date, n: number): Date[] {
  if (first.getTime() > now.getTime()) return [];
  let runs: Date[];
  if (timing.cron !== null) {
    runs = cronOf(timing).previousRuns(n, new Date(now.getTime() + 1)).reverse();
  } else {
    const period = timing.intervalSeconds! * 1000;
    const last = anchor.getTime() + Math.floor((now.getTime() - anchor.getTime()) / period) * period;
    runs = [];
    for (let at = last, i = 0; i < n; i++, at -= period) runs.unshift(new Date(at));
  }
  // `first` is a run itself (the stored next run), so nothing before it is due.
  return runs.filter((at) => at.getTime() >= first.getTime());
}
