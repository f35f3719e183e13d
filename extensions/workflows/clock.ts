// The engine's time source. Normally the system clock; with the test clock switched on
// (ROOST_CLOCK=test, sdk/test-clock.ts; docs/workflows.md) it runs ahead of the system clock by
// an offset the instance owner advances through POST /api/workflows/test-clock, kept in the database
// so time never goes back across a restart. Delays and time-outs compare against `now()`.
import type { Knex } from 'knex';

const OFFSET_KEY = 'test_clock_offset_ms';

export class Clock {
  private offsetMs = 0;

  private constructor(
    readonly test: boolean,
    private readonly db: Knex,
  ) {}

  static async open(db: Knex, test: boolean): Promise<Clock> {
    const clock = new Clock(test, db);
    await clock.refresh();
    return clock;
  }

  /** Reads the offset again: with several instances, another may have advanced it. */
  async refresh(): Promise<void> {
    if (!this.test) return;
    const row = (await this.db('workflow_kv').where({ key: OFFSET_KEY }).first()) as { value: string } | undefined;
    this.offsetMs = Math.max(this.offsetMs, row ? Number(row.value) : 0);
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  async advance(ms: number): Promise<number> {
    await this.refresh();
    this.offsetMs += ms;
    await this.db('workflow_kv').insert({ key: OFFSET_KEY, value: String(this.offsetMs) }).onConflict('key').merge();
    return this.now();
  }
}
