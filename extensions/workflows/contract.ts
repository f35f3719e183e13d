// The workflows extension's contract with its callers (schedules trigger a workflow and wait for the
// run; references are checked through its read route). It imports nothing of workflows' own code;
// workflows types its handlers and its run states with it.
import type { Route } from '../../sdk/route-call.js';

export const WORKFLOWS_ROUTES = {
  get: 'GET /api/workflows/:id',
  trigger: 'POST /api/workflows/:id/trigger',
  run: 'GET /api/workflow-runs/:id',
  runAction: 'POST /api/workflow-runs/:id/action',
} as const satisfies Record<string, Route>;

/** A run's `status`; the last three end it. */
export const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_DONE: readonly RunStatus[] = ['completed'];
export const RUN_FAILED: readonly RunStatus[] = ['failed', 'cancelled'];

export interface TriggerRequest {
  input: Record<string, unknown>;
}

/** What POST /api/workflow-runs/:id/action takes. */
export interface RunActionRequest {
  action: 'pause' | 'resume' | 'cancel';
}
