// The scheduler's time source. In production: the system clock. With ROOST_CLOCK=test (refused when
// NODE_ENV=production) a test clock that starts at 2000-01-01T00:00Z and stands still until a test sets or advances it through
// POST /api/scheduler/test-clock; its time is stored, so it survives a restart of the server (the
// missed-run tests stop the server, restart it and move the clock past the runs it missed).
import type { Knex } from 'knex';
import { testClockWanted } from '../../sdk/test-clock.js';

const KEY = 'test_clock';
/** Where a new test clock starts: before any date a test picks, since the clock only moves forward. */
const TEST_EPOCH = Date.parse('2000-01-01T00:00:00.000Z');

export interface Clock {
  readonly kind: 'system' | 'test';
  now(): Date;
}

export const systemClock: Clock = { kind: 'system', now: () => new Date() };

export class TestClock implements Clock {
  readonly kind = 'test';
  private current: number;

  private constructor(private readonly db: Knex, start: number) {
    this.current = start;
  }

  static async open(db: Knex): Promise<TestClock> {
    const row = await db('scheduler_state').where({ key: KEY }).first<{ value: string } | undefined>();
    const clock = new TestClock(db, row ? Date.parse(row.value) : TEST_EPOCH);
    if (!row) await clock.save();
    return clock;
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock to `to` or by `byMs`; it never goes back (schedules already claimed stay claimed). */
  async move(change: { to?: string; byMs?: number }): Promise<Date> {
    const target = change.to !== undefined ? Date.parse(change.to) : this.current + (change.byMs ?? 0);
    this.current = Math.max(this.current, target);
    await this.save();
    return this.now();
  }

  private async save(): Promise<void> {
    const value = new Date(this.current).toISOString();
    await this.db('scheduler_state').insert({ key: KEY, value }).onConflict('key').merge();
  }
}

/** The clock ROOST_CLOCK asks for; throws on a test clock in production, or on an unknown value. */
export async function openClock(db: Knex, env: NodeJS.ProcessEnv = process.env): Promise<Clock> {
  return testClockWanted(env) ? TestClock.open(db) : systemClock;
}
