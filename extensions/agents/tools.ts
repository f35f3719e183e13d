// MCP tools over agents.
import type { ToolHandler } from '../_shared/extension.js';
import { AgentStore } from './store.js';

const MAX_LISTED = 200;

export const tools: Record<string, ToolHandler> = {
  async svc_list_agents(_args, caller, ctx) {
    const { agents, total } = await new AgentStore(ctx.db, ctx.sql).list(caller.tenantId, { limit: MAX_LISTED, offset: 0, total: true });
    const listed = agents.map((a) => ({ id: a.id, name: a.name, wallet: a.wallet, description: a.description }));
    return { content: [{ type: 'text', text: JSON.stringify({ agents: listed, total }) }] };
  },
};
