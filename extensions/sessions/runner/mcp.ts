// The server's own tools, reached as any MCP client would: Streamable HTTP at `${serverUrl}/mcp` with
// the session-scoped bearer token (it names the agent and session, and carries the agent's grants).
// The MCP SDK (with zod, most of a runner's code) loads with the first connection, not with every runner.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolSpec } from '../../../lib/providers/index.js';

/** Tools such as svc_send_message or svc_ask_owner wait for someone; give them time. */
const CALL_TIMEOUT_MS = 15 * 60_000;

export class McpTools {
  private client: Promise<Client> | undefined;

  private constructor(
    private readonly url: string,
    private readonly token: string,
    readonly specs: ToolSpec[],
  ) {}

  /** Connects now and asks `/mcp` for its tools. */
  static async connect(url: string, token: string): Promise<McpTools> {
    const client = open(url, token);
    const { tools } = await (await client).listTools();
    const mcp = new McpTools(url, token, tools.map((t) => ({ name: t.name, description: t.description ?? t.name, inputSchema: t.inputSchema as Record<string, unknown> })));
    mcp.client = client;
    return mcp;
  }

  /** Tools handed over by the sessions extension: the connection is made when a tool is first called. */
  static handed(url: string, token: string, specs: ToolSpec[]): McpTools {
    return new McpTools(url, token, specs);
  }

  has(name: string): boolean {
    return this.specs.some((s) => s.name === name);
  }

  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean }> {
    this.client ??= open(this.url, this.token);
    // A failed connection is not kept: the next call tries again.
    const client = await this.client.catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, signal });
    return { text: contentText(result.content), isError: result.isError === true };
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

async function open(url: string, token: string): Promise<Client> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'roost-session-runner', version: '0.1.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** What the model reads of an MCP tool result: its text parts, and any other part as JSON. */
export function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? (content as Array<{ type: string; text?: string }>) : [];
  return parts.map((c) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('\n');
}
