// What an execution does: each action is a route of another extension, called as the schedule's
// tenant (role operator) and only among routes served over HTTP too. A target whose extension is not
// loaded fails the execution with EXTENSION_UNAVAILABLE naming it.
import { RoostError } from '../../protocol/errors.js';
import { waitForReply } from '../_shared/agent-reply.js';
import type { CallAs, HostClient } from '../_shared/host-client.js';

export type Action =
  | { type: 'session'; agentId: string; prompt: string; projectId?: string; timeoutMinutes?: number }
  | { type: 'council'; councilId: string; prompt?: string }
  | { type: 'workflow'; workflowId: string; input?: Record<string, unknown> }
  | { type: 'work_task'; description: string; projectId?: string; agentId?: string }
  | { type: 'route'; method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown };

export interface ActionOutcome {
  result: unknown;
  /** MicroUnits the action reports having spent (a session's cost once it ended). */
  cost: number;
}

export interface ActionRun {
  host: HostClient;
  tenantId: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Called as soon as the action started a session, so a cancel can stop it. */
  onSession(sessionId: string): Promise<void>;
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

/** Checks what the JSON Schema cannot: the size of the whole action and the route it may call. */
export function checkAction(action: Action): void {
  if (Buffer.byteLength(JSON.stringify(action)) > MAX_ACTION_BYTES) throw new RoostError('VALIDATION_ERROR', `body.action is over ${MAX_ACTION_BYTES} bytes`);
  if (action.type === 'route' && OWN_PATHS.test(action.path)) throw new RoostError('VALIDATION_ERROR', `body.action.path: a schedule may not call the scheduler's own routes (${action.path})`);
  if (action.type === 'route' && action.path.split('?')[0]!.split('/').some((part) => part === '..' || part === '.')) {
    throw new RoostError('VALIDATION_ERROR', 'body.action.path must not contain . or .. segments');
  }
}

const seg = encodeURIComponent;

export async function perform(action: Action, run: ActionRun): Promise<ActionOutcome> {
  const as: CallAs = { tenantId: run.tenantId, public: true };
  switch (action.type) {
    case 'session': {
      const body = { agentId: action.agentId, initialPrompt: action.prompt, ...(action.projectId ? { projectId: action.projectId } : {}), ...(action.timeoutMinutes ? { timeoutMinutes: action.timeoutMinutes } : {}) };
      const session = await call(run, 'POST', '/api/sessions', body, as, 'starting a session');
      const sessionId = String((session as { id: unknown }).id);
      await run.onSession(sessionId);
      const reply = await waitForReply(run.host, as, sessionId, 0, { timeoutMs: run.timeoutMs, signal: run.signal });
      // A scheduled prompt is asked once: the session is stopped once it answered, so runs do not pile
      // up live sessions (and their runners) until each one's timeout.
      await run.host.call('POST', `/api/sessions/${seg(sessionId)}/stop`, {}, as);
      // The cost the session itself reports once it ended (it includes every turn it ran).
      const after = (await call(run, 'GET', `/api/sessions/${seg(sessionId)}`, undefined, as, 'reading the session')) as { cost?: unknown; status?: unknown };
      const cost = typeof after.cost === 'number' ? after.cost : reply.cost;
      return { result: { sessionId, status: after.status ?? null, text: reply.text.slice(0, 4000) }, cost };
    }
    case 'council':
      return { result: await call(run, 'POST', `/api/councils/${seg(action.councilId)}/launch`, action.prompt ? { prompt: action.prompt } : {}, as, 'launching the council'), cost: 0 };
    case 'workflow':
      return { result: await call(run, 'POST', `/api/workflows/${seg(action.workflowId)}/trigger`, { input: action.input ?? {} }, as, 'running the workflow'), cost: 0 };
    case 'work_task': {
      const body = { description: action.description, ...(action.projectId ? { projectId: action.projectId } : {}), ...(action.agentId ? { agentId: action.agentId } : {}) };
      return { result: await call(run, 'POST', '/api/work-tasks', body, as, 'creating the work task'), cost: 0 };
    }
    case 'route':
      return { result: { status: 'ok', body: await call(run, action.method, action.path, action.body, as, `calling ${action.method} ${action.path}`) }, cost: 0 };
  }
}

async function call(run: ActionRun, method: string, path: string, body: unknown, as: CallAs, what: string): Promise<unknown> {
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
  return answer;
}
