// Executors of the node types that start something in another extension: an agent session, a council
// launch, a work task. Each records what it started on its node run before waiting on it, so a resumed
// node waits on that instead of starting another. A crash between starting it and recording it is
// covered too: a council launch and a work task are asked for with an idempotency key unique to the
// node run (run, node, attempt), so asking again answers the record the first ask made; a session
// carries a name unique to its node run and is found again by it. What a node's sessions were charged
// is recorded on the node run (and summed on the run).
import { RoostError } from '../../protocol/errors.js';
import { waitForReply } from '../sessions/contract-reply.js';
import { awaitEffect, costOfFailure, sessionsCost, stopEffect, type EffectKind } from '../../sdk/effects.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { done, type Executor, type NodeEnv } from './node-env.js';
import type { NodeType } from './node-types.js';
import { routePath, type Query, type Route } from '../../sdk/route-call.js';
import { COUNCILS_ROUTES } from '../councils/contract.js';
import { WORK_TASKS_ROUTES } from '../work-tasks/contract.js';
import { SESSIONS_ROUTES, sessionsClient } from '../sessions/contract.js';

const DEFAULT_WAIT_SECONDS = 3_600;
const SESSION_LOOKUP_PAGES = 5;

type Body = Record<string, unknown>;

/** A route of another extension's contract, called as `call` does. */
function callTo(host: HostClient, as: CallAs, route: Route, params: Record<string, string>, body: unknown, what: string, query?: Query): Promise<Body> {
  const { method, path } = routePath(route, params, query);
  return call(host, as, method, path, body, what);
}

async function call(host: HostClient, as: CallAs, method: string, path: string, body: unknown, what: string): Promise<Body> {
  const reply = await host.call<Body>(method, path, body, as);
  const answer = reply.body;
  if (reply.status === 404 && answer?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the extension serving ${method} ${path.split('?')[0]}, which is not loaded`);
  }
  if (reply.status >= 400 || !answer) {
    const code = typeof answer?.code === 'string' ? answer.code : 'UPSTREAM_ERROR';
    throw new RoostError(code, `${what} failed: ${typeof answer?.error === 'string' ? answer.error : `status ${reply.status}`}`, { status: reply.status >= 400 ? reply.status : 502 });
  }
  return answer;
}

const waitMs = (env: NodeEnv) => Number(env.input.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000;

/** The session's name: unique to this node run, so it can be found again after a crash. */
const sessionName = (env: NodeEnv) => `workflow ${env.run.id} ${env.node.id} #${env.nodeRun.seq}`;

async function findSession(env: NodeEnv, agentId: string, name: string): Promise<string | undefined> {
  for (let page = 0; page < SESSION_LOOKUP_PAGES; page++) {
    const list = await callTo(env.host, env.as, SESSIONS_ROUTES.list, {}, undefined, 'looking for the session a node started', { agentId, limit: 200, offset: page * 200 });
    const sessions = (list.sessions as Array<{ id: string; name: string }> | undefined) ?? [];
    const found = sessions.find((s) => s.name === name);
    if (found) return found.id;
    if (!list.hasMore) return undefined;
  }
  return undefined;
}

/**
 * Starts once: `start` runs with the node run's idempotency key unless an earlier attempt recorded what
 * it started; asked again after a crash, the other extension answers the record the first ask made.
 */
async function startOnce(env: NodeEnv, key: string, start: (idempotencyKey: string) => Promise<string>): Promise<string> {
  const known = env.state[key];
  if (typeof known === 'string') return known;
  const id = await start(`workflow:${env.run.id}:${env.node.id}:${env.nodeRun.seq}`);
  await env.saveState({ [key]: id });
  return id;
}

/** Waits for a launch or a task to end, recording what its sessions cost either way. */
async function awaitStarted(env: NodeEnv, kind: EffectKind, id: string): Promise<Body> {
  try {
    const { record, cost } = await awaitEffect(env.host, env.as, kind, id, { signal: env.signal, timeoutMs: waitMs(env) });
    await env.recordCost(cost);
    return record;
  } catch (err) {
    if (costOfFailure(err) > 0) await env.recordCost(costOfFailure(err));
    throw err;
  }
}

export const remoteExecutors: Partial<Record<NodeType, Executor>> = {
  agent_session: async (env) => {
    const agentId = String(env.input.agentId);
    const name = sessionName(env);
    // An attempt that was starting its session when the server stopped: the name finds it, if it started.
    if (env.state.starting && typeof env.state.sessionId !== 'string') {
      const found = await findSession(env, agentId, name);
      if (found) await env.saveState({ sessionId: found });
    }
    if (typeof env.state.sessionId !== 'string') await env.saveState({ starting: true });
    const sessionId = await startOnce(env, 'sessionId', async () => {
      const body = { agentId, initialPrompt: env.input.prompt, name, ...pick(env.input, ['projectId', 'timeoutMinutes']) };
      return String((await callTo(env.host, env.as, SESSIONS_ROUTES.create, {}, body, `starting a session for agent ${agentId}`)).id);
    });
    const reply = await waitForReply(env.host, env.as, sessionId, 0, { timeoutMs: waitMs(env), signal: env.signal });
    // The node asked one thing: its session need not hold a runner any longer.
    await sessionsClient(env.host, env.as).stop(sessionId).catch(() => undefined);
    // What the session was charged once it stopped (every turn it ran).
    const cost = (await sessionsCost(env.host, env.as, [sessionId])) || reply.cost;
    await env.recordCost(cost);
    return done({ ...reply, cost });
  },

  council: async (env) => {
    const councilId = String(env.input.councilId);
    const launchId = await startOnce(env, 'launchId', async (idempotencyKey) => {
      const launch = await callTo(env.host, env.as, COUNCILS_ROUTES.launch, { id: councilId }, { prompt: env.input.prompt, idempotencyKey }, `launching council ${councilId}`);
      return String(launch.id ?? launch.launchId);
    });
    return done(await awaitStarted(env, 'council', launchId));
  },

  work_task: async (env) => {
    const taskId = await startOnce(env, 'taskId', async (idempotencyKey) => {
      const body = { description: env.input.description, ...pick(env.input, ['agentId', 'projectId']), idempotencyKey };
      return String((await callTo(env.host, env.as, WORK_TASKS_ROUTES.create, {}, body, 'creating a work task')).id);
    });
    return done(await awaitStarted(env, 'work_task', taskId));
  },
};

/** Stops what a cancelled node run started (best effort: it may have ended already). */
export async function stopStarted(host: HostClient, as: CallAs, state: Record<string, unknown>): Promise<void> {
  if (typeof state.sessionId === 'string') await sessionsClient(host, as).stop(state.sessionId).catch(() => undefined);
  if (typeof state.launchId === 'string') await stopEffect(host, as, 'council', state.launchId);
  if (typeof state.taskId === 'string') await stopEffect(host, as, 'work_task', state.taskId);
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined && source[k] !== '').map((k) => [k, source[k]]));
}
