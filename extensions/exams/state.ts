// The exams extension's running state, built by setup and handed to every route after ctx: this
// process's runner id (the runs it sits carry it) and the heartbeat it beats for them with.
import { randomUUID } from 'node:crypto';
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { ExamStore } from './store.js';

export interface Exams {
  runner: string;
  heartbeat: NodeJS.Timeout;
}

export async function startExams(ctx: ExtensionContext): Promise<Exams> {
  const runner = randomUUID();
  const store = new ExamStore(ctx.db);
  const everyMs = integerSetting(ctx, 'HEARTBEAT_MS', 30_000, 200, 3_600_000);
  const staleBefore = (now: number) => now - 3 * everyMs;
  // SQLite: only this process uses the database, so whatever runs was interrupted. PostgreSQL: other
  // instances sit exams too; only the runs whose runner stopped beating were.
  const exclusive = ctx.init.storage?.client !== 'pg';
  await store.failInterrupted({ exclusive, staleBefore: staleBefore(Date.now()) });
  const heartbeat = setInterval(() => {
    const now = Date.now();
    void store.beat(runner, now)
      .then(() => (exclusive ? 0 : store.failInterrupted({ exclusive, staleBefore: staleBefore(now) })))
      .catch((err: Error) => ctx.host.log('warn', `exam heartbeat failed: ${err.message}`));
  }, everyMs).unref();
  return { runner, heartbeat };
}

export function stopExams(_ctx: ExtensionContext, exams: Exams): void {
  clearInterval(exams.heartbeat);
}
