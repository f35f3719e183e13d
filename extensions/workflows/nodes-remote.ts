// Executors of the node types that start something in another extension: an agent session, a council
// launch, a work task. Each records what it started on its node run before waiting on it, so a resumed
// node waits on that instead of starting another. A session carries a name unique to its node run, so
// even a crash between starting it and recording it is recovered by finding it again; councils and work
// tasks offer no such lookup, so a node run interrupted in that instant fails rather than risk a
// second launch (at most once).
import { RoostError } from '../../protocol/errors.js';
import { waitForReply } from '../_shared/agent-reply.js';
import type { CallAs, HostClient } from '../_shared/host-client.js';
import { done, type Executor, type NodeEnv } from './node-env.js';
import type { NodeType } from './node-types.js';

const DEFAULT_WAIT_SECONDS = 3_600;
const SESSION_LOOKUP_PAGES = 5;
const COUNCIL_DONE = ['completed'];
const WORK_TASK_DONE = ['completed', 'complete', 'done', 'succeeded', 'merged'];
const FAILED = ['failed', 'error', 'aborted', 'cancelled', 'canceled', 'stopped', 'timeout'];

type Body = Record<string, unknown>;

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
    const list = await call(env.host, env.as, 'GET', `/api/sessions?agentId=${encodeURIComponent(agentId)}&limit=200&offset=${page * 200}`, undefined, 'looking for the session a node started');
    const sessions = (list.sessions as Array<{ id: string; name: string }> | undefined) ?? [];
    const found = sessions.find((s) => s.name === name);
    if (found) return found.id;
    if (!list.hasMore) return undefined;
  }
  return undefined;
}

/** Polls a record until its `field` says it finished; throws when it failed or took too long. */
async function pollUntilDone(env: NodeEnv, path: string, what: string, field: 'stage' | 'status', succeeded: string[]): Promise<Body> {
  const deadline = Date.now() + waitMs(env);
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    const record = await call(env.host, env.as, 'GET', path, undefined, `reading ${what}`);
    const state = String(record[field] ?? '');
    if (succeeded.includes(state)) return record;
    if (FAILED.includes(state)) throw new RoostError('UPSTREAM_ERROR', `${what} ended ${state}${typeof record.error === 'string' ? `: ${record.error}` : ''}`, { status: 502 });
    if (env.signal.aborted) throw new RoostError('CANCELLED', `stopped waiting for ${what}`);
    if (Date.now() + delay > deadline) throw new RoostError('TIMEOUT', `${what} did not finish within ${waitMs(env) / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Starts once: `start` runs only when no earlier attempt of this node run may have started anything. */
async function startOnce(env: NodeEnv, key: string, what: string, start: () => Promise<string>): Promise<string> {
  const known = env.state[key];
  if (typeof known === 'string') return known;
  if (env.state.starting) {
    throw new RoostError('INTERRUPTED', `the server stopped while ${what} was being started; it may have started, so it is not started again (at most once)`, { status: 409 });
  }
  await env.saveState({ starting: true });
  const id = await start();
  await env.saveState({ [key]: id });
  return id;
}

export const remoteExecutors: Partial<Record<NodeType, Executor>> = {
  agent_session: async (env) => {
    const agentId = String(env.input.agentId);
    const name = sessionName(env);
    if (env.state.starting && typeof env.state.sessionId !== 'string') {
      const found = await findSession(env, agentId, name);
      if (found) await env.saveState({ sessionId: found });
      else delete env.state.starting; // never started: start it now
    }
    const sessionId = await startOnce(env, 'sessionId', `a session for agent ${agentId}`, async () => {
      const body = { agentId, initialPrompt: env.input.prompt, name, ...pick(env.input, ['projectId', 'timeoutMinutes']) };
      return String((await call(env.host, env.as, 'POST', '/api/sessions', body, `starting a session for agent ${agentId}`)).id);
    });
    const reply = await waitForReply(env.host, env.as, sessionId, 0, { timeoutMs: waitMs(env), signal: env.signal });
    // The node asked one thing: its session need not hold a runner any longer.
    await env.host.call('POST', `/api/sessions/${encodeURIComponent(sessionId)}/stop`, {}, env.as).catch(() => undefined);
    return done(reply);
  },

  council: async (env) => {
    const councilId = String(env.input.councilId);
    const launchId = await startOnce(env, 'launchId', `a launch of council ${councilId}`, async () => {
      const launch = await call(env.host, env.as, 'POST', `/api/councils/${encodeURIComponent(councilId)}/launch`, { prompt: env.input.prompt }, `launching council ${councilId}`);
      return String(launch.id ?? launch.launchId);
    });
    return done(await pollUntilDone(env, `/api/council-launches/${encodeURIComponent(launchId)}`, `council launch ${launchId}`, 'stage', COUNCIL_DONE));
  },

  work_task: async (env) => {
    const taskId = await startOnce(env, 'taskId', 'a work task', async () => {
      const body = { description: env.input.description, ...pick(env.input, ['agentId', 'projectId']) };
      return String((await call(env.host, env.as, 'POST', '/api/work-tasks', body, 'creating a work task')).id);
    });
    return done(await pollUntilDone(env, `/api/work-tasks/${encodeURIComponent(taskId)}`, `work task ${taskId}`, 'status', WORK_TASK_DONE));
  },
};

/** Stops what a cancelled node run started (best effort: it may have ended already). */
export async function stopStarted(host: HostClient, as: CallAs, state: Record<string, unknown>): Promise<void> {
  const stops: Array<[string, unknown]> = [
    ['/api/sessions/%s/stop', state.sessionId],
    ['/api/council-launches/%s/abort', state.launchId],
    ['/api/work-tasks/%s/cancel', state.taskId],
  ];
  for (const [path, id] of stops) {
    if (typeof id === 'string') await host.call('POST', path.replace('%s', encodeURIComponent(id)), {}, as).catch(() => undefined);
  }
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined && source[k] !== '').map((k) => [k, source[k]]));
}
