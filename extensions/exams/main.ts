// The exams extension: live exams of an agent, graded by checks on what it did in real sessions.
import { runExtension } from '../_shared/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { ExamStore } from './store.js';

runExtension({
  migrations,
  routes,
  async setup(ctx) {
    await new ExamStore(ctx.db).failInterrupted();
  },
});
