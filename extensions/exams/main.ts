// The exams extension: live exams of an agent, graded by checks on what it did in real sessions.
// Each process holds the runs it sits (its `runner`, state.ts) and beats for them; a run nobody beats for
// any more was interrupted (a stop, a crash, a dead instance) and is failed.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { startExams, stopExams } from './state.js';

runExtension({ migrations, routes, setup: startExams, shutdown: stopExams });
