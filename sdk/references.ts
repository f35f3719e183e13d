// Every reference in a request body is resolved as the caller: an id names a resource only if the
// caller could read it through its own route, so another tenant's id answers exactly as an unknown one
// (400 `<field>: <kind> <id> not found`), and nothing of another tenant can be published, granted, run
// or scheduled by naming it. Extensions that take ids in bodies check them here before storing anything.
import { RoostError, validationError } from '../protocol/errors.js';
import { AGENTS_ROUTES } from '../extensions/agents/contract.js';
import { COUNCILS_ROUTES } from '../extensions/councils/contract.js';
import { projectPath } from '../extensions/projects/contract.js';
import { SESSIONS_ROUTES } from '../extensions/sessions/contract.js';
import { WORK_TASKS_ROUTES } from '../extensions/work-tasks/contract.js';
import { WORKFLOWS_ROUTES } from '../extensions/workflows/contract.js';
import { upstreamError, type CallAs, type HostClient, type RouteAnswer } from './host-client.js';
import { routePath } from './route-call.js';

/** The route that reads one resource of each kind (by `:id`), as its caller sees it. */
const ROUTES = {
  agent: (id: string) => routePath(AGENTS_ROUTES.get, { id }).path,
  project: projectPath,
  council: (id: string) => routePath(COUNCILS_ROUTES.get, { id }).path,
  workflow: (id: string) => routePath(WORKFLOWS_ROUTES.get, { id }).path,
  'work task': (id: string) => routePath(WORK_TASKS_ROUTES.get, { id }).path,
  session: (id: string) => routePath(SESSIONS_ROUTES.get, { id }).path,
  'skill bundle': (id: string) => routePath(AGENTS_ROUTES.skillBundle, { id }).path,
} satisfies Record<string, (id: string) => string>;

export type ReferenceKind = keyof typeof ROUTES;

/** The resource `id` of `kind` as the caller reads it; a 400 naming `field` when the caller cannot. */
export async function resolveReference(host: HostClient, as: CallAs, kind: ReferenceKind, id: string, field: string): Promise<Record<string, unknown>> {
  const path = ROUTES[kind](id);
  const reply = (await host.call('GET', path, undefined, as)) as RouteAnswer;
  if (reply.status === 200 && reply.body) return reply.body;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${field} names a ${kind}, and no loaded extension serves GET ${path.slice(0, path.lastIndexOf('/'))}/:id; load it and retry`);
  }
  if (reply.status === 404 || reply.status === 403) throw validationError(`${field}: ${kind} ${id} not found`);
  throw upstreamError(reply, `looking up ${kind} ${id} (${field})`, `${kind}s`);
}

/** Each of `refs` ([kind, id or undefined, field]) resolved as the caller, in turn. */
export async function resolveReferences(host: HostClient, as: CallAs, refs: Array<[ReferenceKind, string | null | undefined, string]>): Promise<void> {
  for (const [kind, id, field] of refs) if (id) await resolveReference(host, as, kind, id, field);
}
