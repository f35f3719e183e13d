// Talking to and about agents: the A2A card, agent-to-agent messages, invocation, and the composed
// runtime view the sessions extension reads (internal: reachable only through `call`).
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../_shared/extension.js';
import { created, ok, page } from '../_shared/http.js';
import { agentCard } from './card.js';
import { mustGetAgent, schema, stores } from './context.js';
import { invokeAgent } from './invoke.js';
import { composeRuntime } from './runtime.js';

const serverUrl = (config: Record<string, unknown> | undefined) => (typeof config?.serverUrl === 'string' ? config.serverUrl : 'http://127.0.0.1:3000');

export const interactionRoutes: Record<string, RouteHandler> = {
  async 'GET /api/agents/:id/agent-card'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const bundles = await stores(ctx).bundles.assigned(agent.id);
    return ok(agentCard(agent, bundles, serverUrl(ctx.init.config), ctx.init.plugin.version));
  },

  async 'GET /api/agents/:id/messages'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    return ok({ agentId: agent.id, ...(await stores(ctx).messages.history(req.auth.tenantId, agent.id, page(req.query))) });
  },

  async 'POST /api/agents/:id/invoke'(req, ctx) {
    const body = validate<{ content: string; fromAgentId?: string }>(schema(ctx, 'invoke.json'), req.body);
    const result = await invokeAgent(ctx, req.auth.tenantId, { requestId: req.id }, { toAgentId: req.params.id!, fromAgentId: body.fromAgentId ?? null, content: body.content });
    return created(result);
  },

  async 'GET /api/internal/agents/:id/runtime'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const { personas, bundles } = stores(ctx);
    return ok(composeRuntime(agent, (await personas.get(agent.id)) ?? null, await bundles.assigned(agent.id)));
  },
};
