// The server's own tools, reached as any MCP client would: Streamable HTTP at `${serverUrl}/mcp` with
// the session-scoped bearer token (it names the agent and session, and carries the agent's grants).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ToolSpec } from '../../_shared/providers/index.js';

/** Tools such as svc_send_message or svc_ask_owner wait for someone; give them time. */
const CALL_TIMEOUT_MS = 15 * 60_000;

export class McpTools {
  private constructor(private readonly client: Client, readonly specs: ToolSpec[]) {}

  static async connect(url: string, token: string): Promise<McpTools> {
    const client = new Client({ name: 'roost-session-runner', version: '0.1.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const specs = tools.map((t) => ({ name: t.name, description: t.description ?? t.name, inputSchema: t.inputSchema as Record<string, unknown> }));
    return new McpTools(client, specs);
  }

  has(name: string): boolean {
    return this.specs.some((s) => s.name === name);
  }

  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean }> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, signal });
    return { text: contentText(result.content), isError: result.isError === true };
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

/** What the model reads of an MCP tool result: its text parts, and any other part as JSON. */
export function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? (content as Array<{ type: string; text?: string }>) : [];
  return parts.map((c) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('\n');
}
