// Every reference in a request body is resolved as the caller: an id names a resource only if the
// caller could read it through its own route, so another tenant's id answers exactly as an unknown one
// (400 `<field>: <kind> <id> not found`), and nothing of another tenant can be published, granted, run
// or scheduled by naming it. Extensions that take ids in bodies check them here before storing anything.
import { RoostError, validationError } from '../../protocol/errors.js';
import { upstreamError, type RouteAnswer } from './agent-lookup.js';
import { COUNCILS_ROUTES } from '../councils/contract.js';
import { PROJECTS_ROUTES } from '../projects/contract.js';
import { WORK_TASKS_ROUTES } from '../work-tasks/contract.js';
import { WORKFLOWS_ROUTES } from '../workflows/contract.js';
import type { CallAs, HostClient } from './host-client.js';
import { routePath, type Route } from './route-call.js';

/** The route that reads one resource of each kind (by `:id`), as its caller sees it. */
const ROUTES = {
  agent: 'GET /api/agents/:id',
  project: PROJECTS_ROUTES.get,
  council: COUNCILS_ROUTES.get,
  workflow: WORKFLOWS_ROUTES.get,
  'work task': WORK_TASKS_ROUTES.get,
  session: 'GET /api/sessions/:id',
  'skill bundle': 'GET /api/skill-bundles/:id',
} as const satisfies Record<string, Route>;

export type ReferenceKind = keyof typeof ROUTES;

/** The resource `id` of `kind` as the caller reads it; a 400 naming `field` when the caller cannot. */
export async function resolveReference(host: HostClient, as: CallAs, kind: ReferenceKind, id: string, field: string): Promise<Record<string, unknown>> {
  const { method, path } = routePath(ROUTES[kind], { id });
  const reply = (await host.call(method, path, undefined, as)) as RouteAnswer;
  if (reply.status === 200 && reply.body) return reply.body;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${field} names a ${kind}, and no loaded extension serves ${ROUTES[kind]}; load it and retry`);
  }
  if (reply.status === 404 || reply.status === 403) throw validationError(`${field}: ${kind} ${id} not found`);
  throw upstreamError(reply, `looking up ${kind} ${id} (${field})`);
}

/** Each of `refs` ([kind, id or undefined, field]) resolved as the caller, in turn. */
export async function resolveReferences(host: HostClient, as: CallAs, refs: Array<[ReferenceKind, string | null | undefined, string]>): Promise<void> {
  for (const [kind, id, field] of refs) if (id) await resolveReference(host, as, kind, id, field);
}
