// The sandbox REST API: policies per agent, the pool's stats, assigning and releasing a session's
// sandbox, and the internal lookup the sessions runner makes before every shell or file tool.
import { join } from 'node:path';
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { upstreamError, type RouteAnswer } from '../../sdk/host-client.js';
import { created, noContent, ok } from '../../sdk/http.js';
import { DEFAULT_POLICY, type SandboxGrant, type SandboxPolicy } from '../../lib/session-sandbox.js';
import { agentsClient } from '../agents/contract.js';
import { sessionsClient } from '../sessions/contract.js';
import type { SandboxPool } from './pool.js';
import { SandboxStore, type Assignment } from './store.js';
import { SANDBOX_ROUTES } from './contract.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const store = (ctx: ExtensionContext) => new SandboxStore(ctx.db);

/** The record of another extension, or NOT_FOUND for an unknown or foreign id (the same answer). */
/** The record another extension (`provider`) answered, or NOT_FOUND for one the caller cannot read. */
function mustExist<T extends object>(reply: RouteAnswer<(T & { code?: string }) | null>, what: string, provider: string): T {
  if (reply.status === 200 && reply.body) return reply.body;
  if ((reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') || reply.status === 403) throw notFound(what);
  throw upstreamError(reply, `looking up ${what}`, provider);
}

async function policyFor(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<SandboxPolicy> {
  const record = await store(ctx).policy(tenantId, agentId);
  if (!record) return DEFAULT_POLICY;
  const { agentId: _agent, updatedAt: _updated, ...policy } = record;
  return policy;
}

export const sandboxRoutes: Record<string, RouteHandler<SandboxPool>> = {
  async 'GET /api/sandbox/stats'(req, ctx, pool) {
    return ok({ ...pool.stats(), assigned: await store(ctx).assignedCount(req.auth.tenantId) });
  },

  async 'GET /api/sandbox/policies'(req, ctx) {
    return ok({ policies: await store(ctx).policies(req.auth.tenantId), defaults: DEFAULT_POLICY });
  },

  async 'GET /api/sandbox/policies/:agentId'(req, ctx) {
    const policy = await store(ctx).policy(req.auth.tenantId, req.params.agentId!);
    if (!policy) throw notFound(`sandbox policy of agent ${req.params.agentId}`);
    return ok(policy);
  },

  async 'PUT /api/sandbox/policies/:agentId'(req, ctx) {
    const input = validate<Partial<SandboxPolicy>>(schema(ctx, 'policy-put.json'), req.body);
    const agentId = req.params.agentId!;
    mustExist(await agentsClient(ctx.host, { requestId: req.id }).get(agentId), `agent ${agentId}`, 'agents');
    const policy = await store(ctx).putPolicy(req.auth.tenantId, agentId, { ...DEFAULT_POLICY, ...input }, new Date().toISOString());
    ctx.host.audit('sandbox.policy_set', `agent:${agentId}`, policy);
    return ok(policy);
  },

  async 'DELETE /api/sandbox/policies/:agentId'(req, ctx) {
    if (!(await store(ctx).deletePolicy(req.auth.tenantId, req.params.agentId!))) throw notFound(`sandbox policy of agent ${req.params.agentId}`);
    ctx.host.audit('sandbox.policy_deleted', `agent:${req.params.agentId}`, {});
    return noContent();
  },

  async 'POST /api/sandbox/assign'(req, ctx, pool) {
    const { sessionId } = validate<{ sessionId: string }>(schema(ctx, 'assign.json'), req.body);
    const tenantId = req.auth.tenantId;
    const session = mustExist(await sessionsClient(ctx.host, { requestId: req.id }).get(sessionId), `session ${sessionId}`, 'sessions');
    if (await store(ctx).assignment(tenantId, sessionId)) throw conflict(`session ${sessionId} already has a sandbox; release it first`);
    const started = performance.now();
    const sandbox = await pool.take();
    const prepareMs = Math.round((performance.now() - started) * 100) / 100;
    const assignment: Assignment = { sessionId, agentId: String(session.agentId), sandboxId: sandbox.id, warm: sandbox.warm, assignedAt: new Date().toISOString() };
    if (!(await store(ctx).assign(tenantId, assignment))) throw conflict(`session ${sessionId} already has a sandbox; release it first`);
    const policy = await policyFor(ctx, tenantId, assignment.agentId);
    ctx.host.audit('sandbox.assigned', `session:${sessionId}`, { sandboxId: sandbox.id, warm: sandbox.warm });
    ctx.host.emit('sandbox.assignment', { sessionId, sandboxId: sandbox.id, assigned: true }, tenantId);
    return created({ ...assignment, prepareMs, policy });
  },

  async 'POST /api/sandbox/release/:sessionId'(req, ctx) {
    const tenantId = req.auth.tenantId;
    const sessionId = req.params.sessionId!;
    const assignment = await store(ctx).assignment(tenantId, sessionId);
    if (!assignment || !(await store(ctx).release(tenantId, sessionId))) throw notFound(`sandbox of session ${sessionId}`);
    ctx.host.audit('sandbox.released', `session:${sessionId}`, { sandboxId: assignment.sandboxId });
    ctx.host.emit('sandbox.assignment', { sessionId, sandboxId: assignment.sandboxId, assigned: false }, tenantId);
    return ok({ ...assignment, released: true });
  },

  /** What the sessions runner applies: 404 when the session runs unsandboxed. */
  async [SANDBOX_ROUTES.sessionGrant](req, ctx, pool) {
    const tenantId = req.auth.tenantId;
    const assignment = await store(ctx).assignment(tenantId, req.params.sessionId!);
    if (!assignment) throw notFound(`sandbox of session ${req.params.sessionId}`);
    const tools = pool.tools;
    if ('missing' in tools) throw new RoostError('SANDBOX_UNAVAILABLE', `session ${assignment.sessionId} must run sandboxed, but ${tools.missing}`, { status: 503 });
    const grant: SandboxGrant = { sandboxId: assignment.sandboxId, ...tools, policy: await policyFor(ctx, tenantId, assignment.agentId) };
    return ok(grant);
  },
};
