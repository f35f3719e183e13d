// One client connection to an external MCP server, through the MCP SDK: a stdio child (command, args,
// env, cwd — spawned inside this extension's sandbox) or Streamable HTTP (url, headers, through the
// guarded fetch). The last lines
// the child wrote on stderr go into error messages, which is usually where the reason is.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { RoostError } from '../../protocol/errors.js';
import type { ConnectableConfig } from './store.js';

const STDERR_LINES = 20;

export interface Timeouts {
  connectMs: number;
  callMs: number;
}

export class Connection {
  lastUsed = Date.now();
  /** Calls under way: a connection in use is never idle, however long its call takes. */
  inFlight = 0;
  private alive = true;

  private constructor(
    readonly configId: string,
    /** The config's updatedAt when connected: a changed config needs a new connection. */
    readonly version: string,
    private readonly name: string,
    private readonly client: Client,
    private readonly stderr: string[],
    public tools: Tool[],
  ) {
    client.onclose = () => (this.alive = false);
  }

  /** `fetch` carries the HTTP transport's requests (guarded-fetch.ts). */
  static async open(config: ConnectableConfig, timeouts: Timeouts, fetch: FetchLike): Promise<Connection> {
    const stderr: string[] = [];
    const transport = makeTransport(config, stderr, fetch);
    const client = new Client({ name: 'roost-mcp-servers', version: '0.1.0' });
    try {
      await client.connect(transport, { timeout: timeouts.connectMs });
      const { tools } = await client.listTools(undefined, { timeout: timeouts.connectMs });
      return new Connection(config.id, config.updatedAt, config.name, client, stderr, tools);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw failure(config.name, 'could not be reached', err, stderr);
    }
  }

  get open(): boolean {
    return this.alive;
  }

  async refreshTools(timeoutMs: number): Promise<Tool[]> {
    this.lastUsed = Date.now();
    try {
      this.tools = (await this.client.listTools(undefined, { timeout: timeoutMs })).tools;
      return this.tools;
    } catch (err) {
      throw failure(this.name, 'did not list its tools', err, this.stderr);
    }
  }

  async call(tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
    this.lastUsed = Date.now();
    this.inFlight++;
    try {
      return (await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult;
    } catch (err) {
      throw failure(this.name, `failed calling ${tool}`, err, this.stderr);
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }

  async close(): Promise<void> {
    this.alive = false;
    await this.client.close().catch(() => undefined);
  }
}

function makeTransport(config: ConnectableConfig, stderr: string[], fetch: FetchLike): Transport {
  if (config.transport === 'http') {
    return new StreamableHTTPClientTransport(new URL(config.target.url!), { requestInit: { headers: config.secrets.headers }, fetch });
  }
  const transport = new StdioClientTransport({
    command: config.command!,
    args: config.target.args,
    // On top of the SDK's small default environment (PATH, HOME…): never this extension's own.
    env: config.secrets.env,
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(...chunk.toString('utf8').split('\n').filter((line) => line.trim() !== ''));
    stderr.splice(0, Math.max(0, stderr.length - STDERR_LINES));
  });
  return transport;
}

function failure(name: string, what: string, err: unknown, stderr: string[]): RoostError {
  const reason = err instanceof Error ? err.message : String(err);
  const tail = stderr.length > 0 ? `; its stderr ends with: ${stderr.slice(-5).join(' | ')}` : '';
  return new RoostError('UPSTREAM_ERROR', `MCP server "${name}" ${what}: ${reason}${tail}`);
}
