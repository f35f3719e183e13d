// The MCP tool server behind /mcp: the SDK's Server and Streamable HTTP transport, one pair per request
// (stateless). Lists the tools extensions declare, validates arguments against their schemas, routes
// calls with the caller's identity, and refuses privileged tools unless the calling agent was granted
// them. front.ts loads this module on the first /mcp request, so the SDK costs nothing at start-up.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toRoostError } from '../../protocol/errors.js';
import type { ToolReply } from '../../protocol/messages.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';
import type { Identity } from '../auth/identity.js';
import type { Kernel } from '../kernel.js';
import { listedTools, tools } from './tool-list.js';

/** What this module uses of the kernel. */
export type McpServerDeps = Pick<Kernel, 'audit' | 'registry' | 'version'>;

/** Answers one MCP request for an authenticated caller; front.ts has read and parsed the body of a POST. */
export async function serveMcp(k: McpServerDeps, identity: Identity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = buildServer(k, identity);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function buildServer(k: McpServerDeps, identity: Identity): Server {
  const server = new Server({ name: 'roost', version: k.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools(k) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name;
    const entry = tools(k).get(name);
    // A protocol error, as the MCP spec asks: the tool name is a parameter of the request, and it is wrong.
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
    if (entry.decl.privileged && !identity.agent?.tools.includes(name)) {
      k.audit.append({ tenantId: identity.tenantId, actor: identity.actor, action: 'mcp.tool_refused', resource: `tool:${name}`, detail: { reason: 'privileged' } });
      return failure(`${name} is privileged: the agent needs it in mcp_tool_permissions`);
    }
    const args = request.params.arguments ?? {};
    const validator = schemaValidator(entry.decl.inputSchema);
    if (!validator(args)) return failure(describeErrors(validator.errors ?? [], 'arguments'));
    if (identity.role === 'viewer') return failure('viewers cannot call tools');
    try {
      const reply = await k.registry.request<ToolReply>(entry.owner, {
        type: 'tool',
        name,
        arguments: args,
        caller: { agentId: identity.agent?.agentId ?? null, sessionId: identity.agent?.sessionId ?? null, tenantId: identity.tenantId },
      });
      if (!reply || !Array.isArray(reply.content)) return failure(`extension ${entry.owner} answered ${name} with a malformed result`);
      return { content: reply.content as CallToolResult['content'], isError: reply.isError === true };
    } catch (err) {
      return failure(toRoostError(err).message);
    }
  });
  return server;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
