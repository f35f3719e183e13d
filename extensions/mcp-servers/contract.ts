// The mcp-servers extension's contract with its caller, sessions: the external MCP tools an agent may
// use (asked when its runner starts) and running one of them. It imports nothing of mcp-servers' own
// code; mcp-servers types its handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import type { ToolSpec } from '../../lib/providers/index.js';
import { callRoute } from '../../sdk/route-call.js';

export const MCP_SERVERS_ROUTES = {
  agentTools: 'GET /api/internal/mcp-servers/agents/:agentId/tools',
  call: 'POST /api/internal/mcp-servers/:id/call',
} as const;

/** A tool of an external server, named for the agent (`<server>__<tool>`), with where it runs. */
export interface ExternalTool extends ToolSpec {
  serverId: string;
  /** Its name on its own server. */
  tool: string;
}

export interface AgentToolsReply {
  tools: ExternalTool[];
  /** Servers whose tools are missing, and why. */
  errors: Array<{ server: string; error: string }>;
}

export interface ToolCallRequest {
  agentId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** An MCP tool result. */
export interface ToolCallReply {
  content: unknown[];
  isError: boolean;
}

type Reply<T> = Promise<{ status: number; body: (T & { code?: string; error?: string }) | null }>;

export class McpServersClient {
  constructor(private readonly host: HostClient) {}

  agentTools(agentId: string, as: CallAs): Reply<Partial<AgentToolsReply>> {
    return callRoute(this.host, MCP_SERVERS_ROUTES.agentTools, { params: { agentId } }, as);
  }

  call(serverId: string, request: ToolCallRequest, as: CallAs): Reply<Partial<ToolCallReply>> {
    return callRoute(this.host, MCP_SERVERS_ROUTES.call, { params: { id: serverId }, body: request }, as);
  }
}
