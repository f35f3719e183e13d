// The workflows extension: workflow graphs, their runs on a durable engine, svc_manage_workflow, and
// each run's WebSocket stream (workflow-run.{runId}).
import { randomUUID } from 'node:crypto';
import { runExtension } from '../../sdk/extension.js';
import { testClockWanted } from '../../sdk/test-clock.js';
import { Clock } from './clock.js';
import { Engine } from './engine.js';
import { migrations } from './migrations.js';
import { RunControl } from './run-control.js';
import { RunStore } from './run-store.js';
import { runRoutes } from './routes-runs.js';
import { workflowRoutes } from './routes-workflows.js';
import { WorkflowService } from './service.js';
import { WorkflowStore } from './store.js';
import { workflowTools } from './tools.js';
import { WebhookTokens } from './webhook-tokens.js';

// The service is the running state: what setup returns, handed to every route and tool after ctx.
runExtension<WorkflowService>({
  migrations,
  async setup(ctx) {
    const testClock = testClockWanted();
    if (testClock) ctx.host.log('warn', 'the workflow test clock is on (ROOST_CLOCK=test): the instance owner can move time forward; never in production');
    const clock = await Clock.open(ctx.db, testClock);
    const runs = new RunStore(ctx.db, ctx.sql);
    const engine = new Engine(ctx, clock, randomUUID(), new RunControl(runs, ctx.db, ctx.host));
    const service = new WorkflowService(new WorkflowStore(ctx.db, ctx.sql), runs, engine, clock, await WebhookTokens.open(ctx.db));
    // After `ready`: resuming runs calls other extensions, which may still be starting themselves.
    setImmediate(() => engine.kick());
    return service;
  },
  routes: { ...workflowRoutes, ...runRoutes },
  tools: workflowTools,
  shutdown(_ctx, service) {
    service.engine.stop();
  },
});
