// External MCP servers for the tests, written with the MCP SDK's server classes: a stdio server (a
// script written to a temporary folder inside the allowed roots, so the mcp-servers extension's sandbox
// can run it) and a Streamable HTTP server on loopback that insists on a bearer token.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const sdk = (path: string) => import.meta.resolve(`@modelcontextprotocol/sdk/${path}`);

/**
 * A stdio MCP server with three tools: echo {text}, env {name} (a variable of its environment, to show
 * the config's env reached it) and crash (exits, to show the connection is restarted).
 */
export async function writeStdioServer(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-mcp-stdio-'));
  const file = join(dir, 'server.mjs');
  await writeFile(file, `
import { Server } from ${JSON.stringify(sdk('server/index.js'))};
import { StdioServerTransport } from ${JSON.stringify(sdk('server/stdio.js'))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdk('types.js'))};

const server = new Server({ name: 'test-stdio', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
  { name: 'echo', description: 'Echo the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'env', description: 'Read a variable of the server environment', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  { name: 'crash', description: 'Exit at once', inputSchema: { type: 'object', properties: {} } },
] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === 'echo') return { content: [{ type: 'text', text: 'echo: ' + args.text + ' (pid ' + process.pid + ')' }] };
  if (request.params.name === 'env') return { content: [{ type: 'text', text: String(process.env[args.name] ?? '(unset)') }] };
  if (request.params.name === 'crash') process.exit(3);
  return { content: [{ type: 'text', text: 'unknown tool ' + request.params.name }], isError: true };
});
await server.connect(new StdioServerTransport());
`);
  return file;
}

export interface HttpMcp {
  url: string;
  /** Authorization headers the server saw. */
  seen: string[];
  close(): Promise<void>;
}

/** A Streamable HTTP MCP server (stateless, JSON replies) with one tool, add {a, b}; refuses a wrong bearer token. */
export async function startHttpMcp(token: string): Promise<HttpMcp> {
  const seen: string[] = [];
  const http: HttpServer = createServer(async (req, res) => {
    seen.push(String(req.headers.authorization ?? ''));
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad token"}');
    const server = new Server({ name: 'test-http', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'add', description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { a, b } = request.params.arguments as { a: number; b: number };
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
