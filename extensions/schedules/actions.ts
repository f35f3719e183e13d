// What an execution does: each action is a route of another extension, called as the schedule's
// tenant (role operator) and only among routes served over HTTP too. A target whose extension is not
// loaded fails the execution with EXTENSION_UNAVAILABLE naming it. An execution lasts as long as what
// it started: a session until it answered, a council launch, work task or workflow run until it ended
// (it fails when that ended badly), and its cost is what their sessions were charged.
import { RoostError } from '../../protocol/errors.js';
import { waitForReply } from '../sessions/contract-reply.js';
import { awaitEffect, type EffectKind } from '../../sdk/effects.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { routePath, type Route } from '../../sdk/route-call.js';
import { COUNCILS_ROUTES, type LaunchRequest } from '../councils/contract.js';
import { WORK_TASKS_ROUTES } from '../work-tasks/contract.js';
import { WORKFLOWS_ROUTES, type TriggerRequest } from '../workflows/contract.js';
import { SESSIONS_ROUTES, sessionsClient } from '../sessions/contract.js';

/** continueOnError: a failure of this action neither stops the actions after it nor fails the execution. */
export type Action = (
  | { type: 'session'; agentId: string; prompt: string; projectId?: string; timeoutMinutes?: number }
  | { type: 'council'; councilId: string; prompt: string }
  | { type: 'workflow'; workflowId: string; input?: Record<string, unknown> }
  | { type: 'work_task'; description: string; projectId?: string; agentId?: string }
  | { type: 'route'; method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown }
) & { continueOnError?: boolean };

/**
 * A schedule's (and an execution's) actions in the `action` column: one action is stored as itself, as
 * before lists existed, several as their array.
 */
export const encodeActions = (actions: Action[]): string => JSON.stringify(actions.length === 1 ? actions[0] : actions);

export function decodeActions(text: string): Action[] {
  const value = JSON.parse(text) as Action | Action[];
  return Array.isArray(value) ? value : [value];
}

export interface ActionOutcome {
  result: unknown;
  /** MicroUnits the sessions of the action were charged (by the credits extension), once it ended. */
  cost: number;
}

/** What an action started in another extension. */
export type Started = { kind: 'session' | EffectKind; id: string };

export interface ActionRun {
  host: HostClient;
  tenantId: string;
  /** A launch or a task asked for again with this key is not made twice. */
  idempotencyKey: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Called as soon as the action started something, so a cancel can stop it; throws when it was cancelled. */
  onStarted(started: Started): Promise<void>;
}

/** The routes of this extension are refused as targets: a schedule that runs schedules could loop. */
const OWN_PATHS = /^\/api\/(schedules|schedule-executions|scheduler|usage)(\/|\?|$)/;
const MAX_ACTION_BYTES = 256 * 1024;

/**
 * Destructive actions wait for the owner's approval unless the schedule says `auto`: work tasks (they
 * change a repository and open a pull request) and DELETE routes.
 */
export function isDestructive(action: Action): boolean {
  return action.type === 'work_task' || (action.type === 'route' && action.method === 'DELETE');
}

/** The approval rule looks at every action: one destructive action makes the list destructive. */
export const anyDestructive = (actions: Action[]) => actions.some(isDestructive);

/**
 * Checks what the JSON Schema cannot: the size of one action and the route it may call. `field` names it
 * in the answer (body.action, or body.actions.N).
 */
export function checkAction(action: Action, field = 'body.action'): void {
  if (Buffer.byteLength(JSON.stringify(action)) > MAX_ACTION_BYTES) throw new RoostError('VALIDATION_ERROR', `${field} is over ${MAX_ACTION_BYTES} bytes`);
  if (action.type === 'route' && OWN_PATHS.test(action.path)) throw new RoostError('VALIDATION_ERROR', `${field}.path: a schedule may not call the scheduler's own routes (${action.path})`);
  if (action.type === 'route' && action.path.split('?')[0]!.split('/').some((part) => part === '..' || part === '.')) {
    throw new RoostError('VALIDATION_ERROR', `${field}.path must not contain . or .. segments`);
  }
}


export async function perform(action: Action, run: ActionRun): Promise<ActionOutcome> {
  const as: CallAs = { tenantId: run.tenantId, public: true };
  const { idempotencyKey } = run;
  switch (action.type) {
    case 'session': {
      const body = { agentId: action.agentId, initialPrompt: action.prompt, ...(action.projectId ? { projectId: action.projectId } : {}), ...(action.timeoutMinutes ? { timeoutMinutes: action.timeoutMinutes } : {}) };
      const session = await callTo(run, SESSIONS_ROUTES.create, {}, body, as, 'starting a session');
      const sessionId = String((session as { id: unknown }).id);
      await run.onStarted({ kind: 'session', id: sessionId });
      const reply = await waitForReply(run.host, as, sessionId, 0, { timeoutMs: run.timeoutMs, signal: run.signal });
      // A scheduled prompt is asked once: the session is stopped once it answered, so runs do not pile
      // up live sessions (and their runners) until each one's timeout.
      await sessionsClient(run.host, as).stop(sessionId);
      // The cost the session itself reports once it ended (it includes every turn it ran).
      const after = (await callTo(run, SESSIONS_ROUTES.get, { id: sessionId }, undefined, as, 'reading the session')) as { cost?: unknown; status?: unknown };
      const cost = typeof after.cost === 'number' ? after.cost : reply.cost;
      return { result: { sessionId, status: after.status ?? null, text: reply.text.slice(0, 4000) }, cost };
    }
    case 'council': {
      const launch = await callTo(run, COUNCILS_ROUTES.launch, { id: action.councilId }, { prompt: action.prompt, idempotencyKey } satisfies LaunchRequest, as, 'launching the council');
      const { record, cost } = await until(run, as, 'council', String(launch.id));
      return { result: { launchId: record.id, stage: record.stage, result: typeof record.result === 'string' ? record.result.slice(0, 4000) : null }, cost };
    }
    case 'workflow': {
      const started = await callTo(run, WORKFLOWS_ROUTES.trigger, { id: action.workflowId }, { input: action.input ?? {} } satisfies TriggerRequest, as, 'running the workflow');
      const { record, cost } = await until(run, as, 'workflow', String(started.id));
      return { result: { runId: record.id, status: record.status, output: small(record.output) }, cost };
    }
    case 'work_task': {
      const body = { description: action.description, ...(action.projectId ? { projectId: action.projectId } : {}), ...(action.agentId ? { agentId: action.agentId } : {}), idempotencyKey };
      const task = await callTo(run, WORK_TASKS_ROUTES.create, {}, body, as, 'creating the work task');
      const { record, cost } = await until(run, as, 'work_task', String(task.id));
      return { result: { taskId: record.id, status: record.status, prUrl: record.prUrl ?? null }, cost };
    }
    case 'route':
      return { result: { status: 'ok', body: await call(run, action.method, action.path, action.body, as, `calling ${action.method} ${action.path}`) }, cost: 0 };
  }
}

/** Records what was started, then waits for it to end (a bad end throws, carrying its cost). */
async function until(run: ActionRun, as: CallAs, kind: EffectKind, id: string) {
  await run.onStarted({ kind, id });
  return awaitEffect(run.host, as, kind, id, { signal: run.signal, timeoutMs: run.timeoutMs });
}

const MAX_RESULT_OUTPUT = 16 * 1024;
/** A workflow's output kept in the execution's result when it is small; else null (the run keeps it). */
const small = (value: unknown) => (value !== undefined && JSON.stringify(value).length <= MAX_RESULT_OUTPUT ? value : null);

/** A route of another extension's contract, called as `call` does. */
function callTo(run: ActionRun, route: Route, params: Record<string, string>, body: unknown, as: CallAs, what: string): Promise<Record<string, unknown>> {
  const { method, path } = routePath(route, params);
  return call(run, method, path, body, as, what);
}

async function call(run: ActionRun, method: string, path: string, body: unknown, as: CallAs, what: string): Promise<Record<string, unknown>> {
  if (run.signal.aborted) throw new RoostError('CANCELLED', 'the execution was cancelled');
  const reply = await run.host.call<Record<string, unknown> | null>(method, path, body, as);
  const answer = reply.body;
  if (reply.status === 404 && answer?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} failed: nobody serves ${method} ${path.split('?')[0]} (the extension that serves it is not loaded)`, { status: 503 });
  }
  if (reply.status >= 400) {
    const why = typeof answer?.error === 'string' ? answer.error : `status ${reply.status}`;
    throw new RoostError(typeof answer?.code === 'string' ? answer.code : 'UPSTREAM_ERROR', `${what} failed (${reply.status}): ${why}`, { status: reply.status });
  }
  // null for an answer without a body (204): only route actions meet one.
  return answer as Record<string, unknown>;
}
