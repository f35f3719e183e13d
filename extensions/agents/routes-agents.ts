// /api/agents CRUD, personas and skill assignments.
import { notFound, validationError } from '../../protocol/errors.js';
import { RawJson } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { PlansClient } from '../plans/contract.js';
import { announce, mustGetAgent, requireOwner, schema, stores, type AgentsState } from './context.js';
import type { Archetype } from './personas.js';
import type { AgentInput } from './store.js';

const IMMUTABLE = ['id', 'wallet', 'tenant', 'createdAt', 'updatedAt'];

function refuseImmutable(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const fixed = IMMUTABLE.filter((field) => field in body);
  if (fixed.length > 0) throw validationError(`${fixed.map((f) => `body.${f}`).join(', ')} cannot be set: it is assigned by the server and never changes`);
}

const samePermissions = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

export const agentRoutes: Record<string, RouteHandler<AgentsState>> = {
  async 'GET /api/agents'(req, ctx) {
    const filters = { ...page(req.query), search: queryString(req.query, 'search'), wallet: queryString(req.query, 'wallet') };
    const { json, total, hasMore } = await stores(ctx).agents.listJson(req.auth.tenantId, filters);
    return ok(new RawJson(`{"agents":${json}${total === undefined ? '' : `,"total":${total}`},"hasMore":${hasMore}}`));
  },

  async 'POST /api/agents'(req, ctx, state) {
    refuseImmutable(req.body);
    const input = validate<AgentInput & { name: string }>(schema(ctx, 'agent-create.json'), req.body);
    if ((input.mcp_tool_permissions ?? []).length > 0) requireOwner(req.auth, 'grant privileged MCP tools (mcp_tool_permissions)');
    await new PlansClient(ctx.host, state.plans).requireWithin(req.auth.tenantId, 'agents', await stores(ctx).agents.count(req.auth.tenantId), { requestId: req.id });
    const agent = await stores(ctx).agents.create(req.auth.tenantId, input);
    announce(ctx, req.auth.tenantId, 'created', agent);
    return created(agent);
  },

  async 'GET /api/agents/:id'(req, ctx) {
    return ok(await mustGetAgent(ctx, req.auth.tenantId, req.params.id!));
  },

  async 'PUT /api/agents/:id'(req, ctx) {
    refuseImmutable(req.body);
    const input = validate<AgentInput>(schema(ctx, 'agent-update.json'), req.body);
    const current = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    if (input.mcp_tool_permissions && !samePermissions(input.mcp_tool_permissions, current.mcp_tool_permissions)) {
      requireOwner(req.auth, 'change mcp_tool_permissions');
    }
    const agent = await stores(ctx).agents.update(req.auth.tenantId, current.id, input);
    if (!agent) throw notFound(`agent ${current.id}`);
    announce(ctx, req.auth.tenantId, 'updated', agent);
    return ok(agent);
  },

  async 'DELETE /api/agents/:id'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    await stores(ctx).agents.remove(req.auth.tenantId, agent.id);
    announce(ctx, req.auth.tenantId, 'deleted', agent);
    return noContent();
  },

  async 'GET /api/agents/:id/persona'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const persona = await stores(ctx).personas.get(agent.id);
    if (!persona) throw notFound(`persona of agent ${agent.id}`);
    return ok(persona);
  },

  async 'PUT /api/agents/:id/persona'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const input = validate<{ archetype: Archetype; traits?: string[] }>(schema(ctx, 'persona-put.json'), req.body);
    const { persona, created: isNew } = await stores(ctx).personas.put(agent.id, input);
    return isNew ? created(persona) : ok(persona);
  },

  async 'DELETE /api/agents/:id/persona'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    if (!(await stores(ctx).personas.remove(agent.id))) throw notFound(`persona of agent ${agent.id}`);
    return noContent();
  },

  async 'GET /api/agents/:id/skills'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const bundles = await stores(ctx).bundles.assigned(agent.id);
    return ok({ agentId: agent.id, bundleIds: bundles.map((b) => b.id), bundles });
  },

  async 'PUT /api/agents/:id/skills'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const { bundleIds } = validate<{ bundleIds: string[] }>(schema(ctx, 'skills-put.json'), req.body);
    const bundles = await stores(ctx).bundles.assign(req.auth.tenantId, agent.id, bundleIds);
    return ok({ agentId: agent.id, bundleIds: bundles.map((b) => b.id), bundles });
  },
};
