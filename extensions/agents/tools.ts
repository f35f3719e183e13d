// MCP tools over agents, and the MCP HTTP API route that answers the same.
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import { AgentStore } from './store.js';

const MAX_LISTED = 200;

/** What svc_list_agents and GET /api/mcp/list-agents answer: the tenant's agents, at most 200. */
export async function listAgentsForTools(ctx: ExtensionContext, tenantId: string) {
  const { agents, total } = await new AgentStore(ctx.db, ctx.sql).list(tenantId, { limit: MAX_LISTED, offset: 0, total: true });
  return { agents: agents.map((a) => ({ id: a.id, name: a.name, wallet: a.wallet, description: a.description })), total };
}

export const tools: Record<string, ToolHandler> = {
  async svc_list_agents(_args, caller, ctx) {
    return { content: [{ type: 'text', text: JSON.stringify(await listAgentsForTools(ctx, caller.tenantId)) }] };
  },
};
