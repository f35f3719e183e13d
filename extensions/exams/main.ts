// The exams extension: live exams of an agent, graded by checks on what it did in real sessions.
// Each process holds the runs it sits (`runner`) and beats for them; a run nobody beats for any more was
// interrupted (a stop, a crash, a dead instance) and is failed.
import { randomUUID } from 'node:crypto';
import { runExtension } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { ExamStore } from './store.js';

const runner = randomUUID();
let heartbeat: NodeJS.Timeout | undefined;

runExtension({
  migrations,
  routes: routes(runner),
  async setup(ctx) {
    const store = new ExamStore(ctx.db);
    const everyMs = integerSetting(ctx, 'HEARTBEAT_MS', 30_000, 200, 3_600_000);
    const staleBefore = (now: number) => now - 3 * everyMs;
    // SQLite: only this process uses the database, so whatever runs was interrupted. PostgreSQL: other
    // instances sit exams too; only the runs whose runner stopped beating were.
    const exclusive = ctx.init.storage?.client !== 'pg';
    await store.failInterrupted({ exclusive, staleBefore: staleBefore(Date.now()) });
    heartbeat = setInterval(() => {
      const now = Date.now();
      void store.beat(runner, now)
        .then(() => (exclusive ? 0 : store.failInterrupted({ exclusive, staleBefore: staleBefore(now) })))
        .catch((err: Error) => ctx.host.log('warn', `exam heartbeat failed: ${err.message}`));
    }, everyMs).unref();
  },
  shutdown() {
    clearInterval(heartbeat);
  },
});
