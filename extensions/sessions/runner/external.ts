// Tools of the external MCP servers the agent may use. The runner holds only their specs: each call is
// asked of the host (the sessions extension), which has the mcp-servers extension run it, so the
// connections and their secrets never reach the runner.
import type { Peer } from '../../../protocol/peer.js';
import type { ToolSpec } from '../../../lib/providers/index.js';
import { contentText } from './mcp.js';
import type { ExternalToolCall, ExternalToolResult } from './protocol.js';

export class ExternalTools {
  private readonly names: Set<string>;

  constructor(readonly specs: ToolSpec[], private readonly peer: Peer) {
    this.names = new Set(specs.map((s) => s.name));
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  async call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const call: ExternalToolCall = { name, arguments: args };
    const result = await this.peer.request<ExternalToolResult>({ type: 'external_tool', ...call });
    return { text: contentText(result.content), isError: result.isError === true };
  }
}
