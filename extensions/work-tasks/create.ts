// Creating a work task, for the REST route, the WebSocket message and the agent tool alike: the agent
// and project must be the caller's, the project a git repository whose code-host repository is not
// blocked. The task is queued; the engine takes it when its repository's lock is free.
import { randomUUID } from 'node:crypto';
import { notFound, RoostError } from '../../protocol/errors.js';
import type { CallAs } from '../../sdk/host-client.js';
import { routePath } from '../../sdk/route-call.js';
import { isBlocked } from './vcshost.js';
import type { Engine } from './engine.js';
import { originUrl, repoSlug, repoTop } from './git.js';
import { branchName } from './naming.js';
import type { TaskRow } from './store.js';
import { projectPath } from '../projects/contract.js';
import { AGENTS_ROUTES } from '../agents/contract.js';

export interface CreateInput {
  agentId: string;
  description: string;
  projectId: string;
  /** The caller's key for this task: creating again with it answers the same task (unique per tenant). */
  idempotencyKey?: string;
}

/** A record of another extension, read as the caller: 404 stays 404, an unloaded owner is 503. */
export async function record(engine: Engine, as: CallAs, path: string, what: string): Promise<Record<string, unknown>> {
  const reply = await engine.ctx.host.call<Record<string, unknown>>('GET', path, undefined, as);
  if (reply.status === 200 && reply.body) return reply.body;
  if (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') throw notFound(what);
  throw new RoostError('EXTENSION_UNAVAILABLE', `reading ${what} failed with status ${reply.status}`);
}

export async function createTask(engine: Engine, as: CallAs, tenantId: string, input: CreateInput, createdBy: string): Promise<TaskRow> {
  const agent = await record(engine, as, routePath(AGENTS_ROUTES.get, { id: input.agentId }).path, `agent ${input.agentId}`);
  const project = await record(engine, as, projectPath(input.projectId), `project ${input.projectId}`);
  const repo = await repoTop(String(project.workingDir));
  const remote = await originUrl(repo);
  const slug = remote ? repoSlug(remote) : undefined;
  if (!slug) throw new RoostError('VALIDATION_ERROR', `the repository of project ${input.projectId} has no "origin" remote naming a code-host repository (owner/name)`);
  if (await isBlocked(engine.ctx.host, as, slug)) throw new RoostError('FORBIDDEN', `repository ${slug} is on the blocklist: agents may not touch it`);
  const id = randomUUID();
  const row = await engine.store.create({
    id, tenantId, agentId: String(agent.id), projectId: String(project.id), description: input.description, repoDir: repo, repoSlug: slug,
    branch: branchName(String(agent.name), input.description, id), createdBy,
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
  });
  await engine.announce(row, 'task created; waiting for the repository lock');
  engine.scan();
  return row;
}
