// The work-tasks extension's contract with its callers (schedules and workflows start tasks and wait
// for them; references are checked through its read route) and with the subscribers of its events.
// It imports nothing of work-tasks' own code; work-tasks types its handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const WORK_TASKS_ROUTES = {
  list: 'GET /api/work-tasks',
  create: 'POST /api/work-tasks',
  get: 'GET /api/work-tasks/:id',
  cancel: 'POST /api/work-tasks/:id/cancel',
} as const;

export const WORK_TASKS_EVENTS = {
  /** A task ended, and again when its pull request is merged or closed: {@link WorkTaskOutcome}. */
  outcome: 'work_tasks.outcome',
} as const;

/** A task's `status`: the states it ends in, and those that end it well or badly. */
export const WORK_TASK_TERMINAL = ['completed', 'failed', 'cancelled', 'escalation_needed'] as const;
export type WorkTaskStatus = 'queued' | 'branching' | 'running' | 'validating' | 'pushing' | (typeof WORK_TASK_TERMINAL)[number];
export const WORK_TASK_DONE: readonly WorkTaskStatus[] = ['completed'];
export const WORK_TASK_FAILED: readonly WorkTaskStatus[] = ['failed', 'cancelled', 'escalation_needed'];

export interface WorkTaskOutcome {
  taskId: string;
  agentId: string;
  tenantId: string;
  status: WorkTaskStatus;
  merged: boolean;
  prUrl: string | null;
  failureReason: string | null;
  repo: string | null;
  branch: string | null;
  prState: string | null;
}

export interface CreateWorkTaskRequest {
  agentId: string;
  description: string;
  projectId: string;
  /** The caller's key for this task: creating again with it answers the same task (unique per tenant). */
  idempotencyKey?: string;
}

type Reply<T> = Promise<{ status: number; body: T | null }>;

export class WorkTasksClient {
  constructor(private readonly host: HostClient) {}

  get(id: string, as: CallAs): Reply<Record<string, unknown>> {
    return callRoute(this.host, WORK_TASKS_ROUTES.get, { params: { id } }, as);
  }

  cancel(id: string, as: CallAs): Reply<Record<string, unknown>> {
    return callRoute(this.host, WORK_TASKS_ROUTES.cancel, { params: { id }, body: {} }, as);
  }
}
