// Work that one extension starts in another and waits for: a council launch, a work task, a workflow
// run. Schedules and workflows both start them (each with an idempotency key, so a retry after a crash
// finds the record it made instead of making a second), wait for them to end by reading the record,
// stop them when cancelled, and count what they cost: the credits the sessions they ran were charged
// (each session's `cost`, in microUnits, as the credits extension charged it).
import { RoostError } from '../protocol/errors.js';
import { COUNCILS_ROUTES, LAUNCH_DONE, LAUNCH_FAILED } from '../extensions/councils/contract.js';
import { WORK_TASK_DONE, WORK_TASK_FAILED, WORK_TASKS_ROUTES } from '../extensions/work-tasks/contract.js';
import { RUN_DONE, RUN_FAILED, WORKFLOWS_ROUTES, type RunActionRequest } from '../extensions/workflows/contract.js';
import type { CallAs, HostClient } from './host-client.js';
import { routePath } from './route-call.js';
import { sessionsClient } from '../extensions/sessions/contract.js';

export type EffectKind = 'council' | 'work_task' | 'workflow';

interface KindSpec {
  what: string;
  read: (id: string) => string;
  stop: (id: string) => { path: string; body: unknown };
  /** The record's field that says how far it got, and its values that end it well or badly (the provider's contract says which). */
  field: 'stage' | 'status';
  done: readonly string[];
  failed: readonly string[];
}

const path = (route: Parameters<typeof routePath>[0], id: string) => routePath(route, { id }).path;

export const EFFECTS: Record<EffectKind, KindSpec> = {
  council: {
    what: 'council launch',
    read: (id) => path(COUNCILS_ROUTES.launchRecord, id),
    stop: (id) => ({ path: path(COUNCILS_ROUTES.abort, id), body: {} }),
    field: 'stage',
    done: LAUNCH_DONE,
    failed: LAUNCH_FAILED,
  },
  work_task: {
    what: 'work task',
    read: (id) => path(WORK_TASKS_ROUTES.get, id),
    stop: (id) => ({ path: path(WORK_TASKS_ROUTES.cancel, id), body: {} }),
    field: 'status',
    done: WORK_TASK_DONE,
    failed: WORK_TASK_FAILED,
  },
  workflow: {
    what: 'workflow run',
    read: (id) => path(WORKFLOWS_ROUTES.run, id),
    stop: (id) => ({ path: path(WORKFLOWS_ROUTES.runAction, id), body: { action: 'cancel' } satisfies RunActionRequest }),
    field: 'status',
    done: RUN_DONE,
    failed: RUN_FAILED,
  },
};

type Body = Record<string, unknown>;

/** The ids of the sessions a record ran: a launch's members and synthesizer, a task's session. */
export function sessionIdsOf(record: Body): string[] {
  const members = Array.isArray(record.members) ? (record.members as Array<{ sessionId?: unknown }>).map((m) => m.sessionId) : [];
  const ids = [...members, record.synthesisSessionId, record.sessionId].filter((id): id is string => typeof id === 'string' && id !== '');
  return [...new Set(ids)];
}

/** MicroUnits the sessions were charged (a session that cannot be read counts 0). */
export async function sessionsCost(host: HostClient, as: CallAs, ids: string[]): Promise<number> {
  let total = 0;
  for (const id of ids) {
    const reply = await sessionsClient(host, as).get(id).catch(() => undefined);
    if (reply?.status === 200 && typeof reply.body?.cost === 'number') total += reply.body.cost;
  }
  return total;
}

/** What an ended record cost: a workflow run reports its own; a launch or a task, its sessions'. */
export async function effectCost(host: HostClient, as: CallAs, kind: EffectKind, record: Body): Promise<number> {
  if (kind === 'workflow') return typeof record.cost === 'number' ? record.cost : 0;
  return sessionsCost(host, as, sessionIdsOf(record));
}

export interface EffectEnd {
  record: Body;
  cost: number;
}

/**
 * Reads the record until it ends. Resolves with it and its cost when it ended well; throws when it ended
 * badly (UPSTREAM_ERROR, `details.cost` what it cost all the same), took longer than `timeoutMs`
 * (TIMEOUT), or `signal` fired (CANCELLED).
 */
export async function awaitEffect(host: HostClient, as: CallAs, kind: EffectKind, id: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<EffectEnd> {
  const spec = EFFECTS[kind];
  const deadline = Date.now() + options.timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    const record = await readRecord(host, as, spec.read(id), `reading ${spec.what} ${id}`);
    const state = String(record[spec.field] ?? '');
    if (spec.done.includes(state)) return { record, cost: await effectCost(host, as, kind, record) };
    if (spec.failed.includes(state)) {
      const why = typeof record.error === 'string' ? `: ${record.error}` : typeof record.failureReason === 'string' ? `: ${record.failureReason}` : '';
      throw new RoostError('UPSTREAM_ERROR', `${spec.what} ${id} ended ${state}${why}`, { status: 502, details: { cost: await effectCost(host, as, kind, record), record } });
    }
    if (options.signal.aborted) throw new RoostError('CANCELLED', `stopped waiting for ${spec.what} ${id}`);
    if (Date.now() + delay > deadline) throw new RoostError('TIMEOUT', `${spec.what} ${id} did not end within ${Math.round(options.timeoutMs / 1000)} s`);
    await sleep(delay, options.signal);
  }
}

/** Stops what was started (best effort: it may have ended already). */
export async function stopEffect(host: HostClient, as: CallAs, kind: EffectKind, id: string): Promise<void> {
  const { path, body } = EFFECTS[kind].stop(id);
  await host.call('POST', path, body, as).catch(() => undefined);
}

/** The cost an error of awaitEffect carries (a badly ended record's), or 0. */
export function costOfFailure(err: unknown): number {
  const cost = (err as { details?: { cost?: unknown } } | null)?.details?.cost;
  return typeof cost === 'number' ? cost : 0;
}

export async function readRecord(host: HostClient, as: CallAs, path: string, what: string): Promise<Body> {
  const reply = await host.call<Body | null>('GET', path, undefined, as);
  const answer = reply.body;
  if (reply.status === 404 && answer?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the extension serving GET ${path.split('?')[0]}, which is not loaded`);
  }
  if (reply.status >= 400 || !answer) {
    const code = typeof answer?.code === 'string' ? answer.code : 'UPSTREAM_ERROR';
    throw new RoostError(code, `${what} failed: ${typeof answer?.error === 'string' ? answer.error : `status ${reply.status}`}`, { status: reply.status >= 400 ? reply.status : 502 });
  }
  return answer;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
