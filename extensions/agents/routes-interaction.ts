// Talking to and about agents: the A2A card, the store of agent-to-agent messages (the messaging
// extension delivers them and records them here), the MCP HTTP list, and the composed runtime view the
// sessions extension reads (internal routes: reachable only through `call`).
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, ok, page, queryString } from '../../sdk/http.js';
import { notFound, validationError } from '../../protocol/errors.js';
import { agentCard } from './card.js';
import { mustGetAgent, schema, stores } from './context.js';
import { A2A_BINDING, agentTopic, type AgentMessageTxid, type NewAgentMessage } from './contract.js';
import { composeRuntime } from './runtime.js';
import { listAgentsForTools } from './tools.js';

/** As many as a project's assignment may hold. */
const MAX_PROJECT_BUNDLES = 100;

const serverUrl = (config: Record<string, unknown> | undefined) => (typeof config?.serverUrl === 'string' ? config.serverUrl : 'http://127.0.0.1:3000');

export const interactionRoutes: Record<string, RouteHandler> = {
  async 'GET /api/agents/:id/agent-card'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const bundles = await stores(ctx).bundles.assigned(agent.id);
    // The agent's A2A endpoint, while a loaded extension serves the binding (none: no endpoint on the card).
    const served = (await ctx.host.routes(A2A_BINDING.path)).some((r) => r.method === 'POST' && r.path === A2A_BINDING.path);
    return ok(agentCard(agent, bundles, serverUrl(ctx.init.config), ctx.init.plugin.version, served));
  },

  async 'GET /api/agents/:id/messages'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    return ok({ agentId: agent.id, ...(await stores(ctx).messages.history(req.auth.tenantId, agent.id, page(req.query))) });
  },

  async 'GET /api/mcp/list-agents'(req, ctx) {
    return ok(await listAgentsForTools(ctx, req.auth.tenantId));
  },

  /** Records a delivered message or reply and tells both agents' streams. Both agents must be the caller tenant's. */
  async 'POST /api/internal/agent-messages'(req, ctx) {
    const input = validate<NewAgentMessage>(schema(ctx, 'internal-message.json'), req.body);
    const tenantId = req.auth.tenantId;
    const { agents, messages } = stores(ctx);
    for (const id of [input.to, input.from]) if (id !== null && !(await agents.get(tenantId, id))) throw notFound(`agent ${id}`);
    if (input.from === input.to) throw validationError('an agent cannot message itself');
    const message = await messages.record(tenantId, input);
    for (const agentId of [input.to, input.from]) if (agentId !== null) ctx.host.emit(agentTopic(agentId), { type: 'agent_message', agentId, message }, tenantId);
    return created(message);
  },

  /** Chainchat records a message's txid once sent on-chain; the messaging extension why it has none yet. */
  async 'PUT /api/internal/agent-messages/:id/txid'(req, ctx) {
    const change = validate<AgentMessageTxid>(schema(ctx, 'internal-message-txid.json'), req.body);
    const message = await stores(ctx).messages.setTxid(req.auth.tenantId, req.params.id!, change);
    if (!message) throw notFound(`agent message ${req.params.id}`);
    return ok(message);
  },

  async 'GET /api/internal/agents/:id/runtime'(req, ctx) {
    const agent = await mustGetAgent(ctx, req.auth.tenantId, req.params.id!);
    const { personas, bundles } = stores(ctx);
    // The project's skills (the session's project, read by the caller) come after the agent's own.
    const projectIds = (queryString(req.query, 'projectBundles') ?? '').split(',').filter(Boolean).slice(0, MAX_PROJECT_BUNDLES);
    const [persona, own, project] = await Promise.all([personas.get(agent.id), bundles.assigned(agent.id), bundles.byIds(req.auth.tenantId, projectIds)]);
    const mine = new Set(own.map((b) => b.id));
    return ok(composeRuntime(agent, persona ?? null, [...own, ...project.filter((b) => !mine.has(b.id))]));
  },
};
