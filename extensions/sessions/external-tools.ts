// The tools of external MCP servers, asked of the mcp-servers extension through the kernel: which ones
// the agent may use when its runner starts, and running one when the runner asks. Without that
// extension a session simply has none; a server that cannot be reached is reported, not fatal.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import type { ToolSpec } from '../../lib/providers/index.js';
import { McpServersClient, type ExternalTool } from '../mcp-servers/contract.js';
import type { ExternalToolCall, ExternalToolResult } from './runner/protocol.js';

type Offered = ExternalTool;

export class ExternalToolSet {
  private constructor(
    private readonly agentId: string,
    private readonly offered: Map<string, Offered>,
    /** Why some servers' tools are missing, when they are. */
    readonly error: string | null,
  ) {}

  static async load(host: HostClient, as: CallAs, agentId: string): Promise<ExternalToolSet> {
    const reply = await new McpServersClient(host).agentTools(agentId, as);
    if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') return new ExternalToolSet(agentId, new Map(), null);
    if (reply.status !== 200) return new ExternalToolSet(agentId, new Map(), `external MCP servers are unavailable: ${reply.body?.error ?? `status ${reply.status}`}`);
    const errors = (reply.body?.errors ?? []).map((e) => e.error);
    return new ExternalToolSet(agentId, new Map((reply.body?.tools ?? []).map((t) => [t.name, t])), errors.length > 0 ? errors.join('; ') : null);
  }

  get specs(): ToolSpec[] {
    return [...this.offered.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }

  async call(host: HostClient, as: CallAs, call: ExternalToolCall): Promise<ExternalToolResult> {
    const offered = this.offered.get(call.name);
    if (!offered) return failure(`there is no external tool named "${call.name}"`);
    const reply = await new McpServersClient(host).call(offered.serverId, { agentId: this.agentId, tool: offered.tool, arguments: call.arguments }, as);
    if (reply.status !== 200) return failure(`${call.name} failed: ${reply.body?.error ?? `status ${reply.status}`}`);
    return { content: Array.isArray(reply.body?.content) ? reply.body.content : [], isError: reply.body?.isError === true };
  }
}

const failure = (text: string): ExternalToolResult => ({ content: [{ type: 'text', text }], isError: true });
