// The MCP server configs REST API (/api/mcp-servers) and the internal routes the sessions extension uses
// to offer a session its agent's external tools and to run them.
import { notFound, RoostError, validationError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import type { HostClient } from '../../sdk/host-client.js';
import { created, noContent, ok } from '../../sdk/http.js';
import { blockedAddress, refusedAddress } from '../../sdk/outbound.js';
import { portOf, reachFor } from '../../sdk/reach.js';
import { requireInstanceOwner } from '../../sdk/roles.js';
import { publicView, resolveInput, validateCreate, validateUpdate, type ServerBody } from './input.js';
import { namespaced } from './names.js';
import type { State } from './state.js';
import { mayUse, type ServerConfig, type ServerInput } from './store.js';
import { MCP_SERVERS_ROUTES, type AgentToolsReply, type ExternalTool, type ToolCallReply, type ToolCallRequest } from './contract.js';
import { agentsClient } from '../agents/contract.js';

/** The config, never opened: reading, changing and deleting work whatever key sealed it. */
async function mustGet(req: RouteRequest, state: State): Promise<ServerConfig> {
  const config = await state.store.get(req.auth.tenantId, req.params.id!);
  if (!config) throw notFound(`MCP server ${req.params.id}`);
  return config;
}

const view = (state: State) => (config: ServerConfig) => publicView(config, state.store.readable(config));

/**
 * A URL that names an address outside the tenant's reach is refused when written (403); a name is
 * checked again on every connection, as it resolves (guarded-fetch.ts).
 */
function checkReach(state: State, tenantId: string, input: ServerInput): void {
  if (!input.target?.url) return;
  const url = new URL(input.target.url);
  const reach = reachFor(state.reach, tenantId, portOf(url));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (blockedAddress(host, reach)) throw refusedAddress(host, reach);
}

/** A stdio config runs a command on the server's machine: only the instance owner may write one. */
function mayWrite(auth: AuthContext, ...transports: Array<ServerConfig['transport'] | undefined>): void {
  if (transports.includes('stdio')) requireInstanceOwner(auth, 'create, change or delete a stdio MCP server (it runs a command on the server)');
}

/** Every named agent must be one of the caller's tenant. */
async function checkAgents(req: RouteRequest, host: HostClient, input: ServerInput): Promise<void> {
  if (input.agentIds === 'all') return;
  for (const agentId of input.agentIds) {
    const reply = await agentsClient(host, { requestId: req.id }).get(agentId);
    if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
      throw new RoostError('EXTENSION_UNAVAILABLE', 'checking agentIds needs the agents extension, which is not loaded');
    }
    if (reply.status !== 200) throw validationError(`body.agentIds: agent ${agentId} not found`);
  }
}

function audit(host: HostClient, action: string, config: ServerConfig): void {
  host.audit(`mcp_server.${action}`, `mcp-server:${config.id}`, { name: config.name, transport: config.transport });
}

export const routes: Record<string, RouteHandler<State>> = {
  async 'GET /api/mcp-servers'(req, _ctx, state) {
    const servers = await state.store.list(req.auth.tenantId);
    return ok({ servers: servers.map(view(state)), total: servers.length });
  },

  async 'POST /api/mcp-servers'(req, ctx, state) {
    const body = validateCreate(ctx.init.plugin.dir, req.body);
    mayWrite(req.auth, body.transport);
    const input = resolveInput(body) as Required<ServerInput>;
    checkReach(state, req.auth.tenantId, input);
    await checkAgents(req, ctx.host, input);
    const config = await state.store.create(req.auth.tenantId, input);
    audit(ctx.host, 'created', config);
    return created(view(state)(config));
  },

  async 'GET /api/mcp-servers/:id'(req, _ctx, state) {
    return ok(view(state)(await mustGet(req, state)));
  },

  async 'PUT /api/mcp-servers/:id'(req, ctx, state) {
    const body: ServerBody = validateUpdate(ctx.init.plugin.dir, req.body);
    const stored = await mustGet(req, state);
    mayWrite(req.auth, stored.transport, body.transport);
    const input = resolveInput(body, { config: stored, open: () => state.store.open(stored) });
    checkReach(state, req.auth.tenantId, input);
    if (body.agentIds !== undefined) await checkAgents(req, ctx.host, input);
    const config = await state.store.update(stored, input);
    if (!config) throw notFound(`MCP server ${stored.id}`);
    await state.pool.drop(config.id);
    audit(ctx.host, 'updated', config);
    return ok(view(state)(config));
  },

  async 'DELETE /api/mcp-servers/:id'(req, ctx, state) {
    const stored = await mustGet(req, state);
    mayWrite(req.auth, stored.transport);
    await state.store.remove(req.auth.tenantId, stored.id);
    await state.pool.drop(stored.id);
    audit(ctx.host, 'deleted', stored);
    return noContent();
  },

  async 'POST /api/mcp-servers/:id/test'(req, _ctx, state) {
    const stored = await mustGet(req, state);
    const started = Date.now();
    try {
      const config = state.store.open(stored);
      const tools = await state.pool.listTools(config);
      const names = namespaced(config.name, tools.map((t) => t.name));
      const byTool = new Map([...names].map(([name, tool]) => [tool, name]));
      return ok({ ok: true, durationMs: Date.now() - started, tools: tools.map((t) => ({ name: t.name, namespacedAs: byTool.get(t.name), description: t.description ?? '' })) });
    } catch (err) {
      if (!(err instanceof RoostError)) throw err;
      return ok({ ok: false, durationMs: Date.now() - started, error: err.message });
    }
  },

  async [MCP_SERVERS_ROUTES.agentTools](req, _ctx, state) {
    const { store, pool } = state;
    const configs = await store.forAgent(req.auth.tenantId, req.params.agentId!);
    const tools: ExternalTool[] = [];
    const errors: Array<{ server: string; error: string }> = [];
    // A config that does not open (sealed under another key) or cannot be reached is reported; the others are offered.
    await Promise.all(configs.map(async (config) => {
      try {
        const offered = await pool.cachedTools(store.open(config));
        const names = namespaced(config.name, offered.map((t) => t.name));
        const byTool = new Map(offered.map((t) => [t.name, t]));
        for (const [name, tool] of names) {
          const spec = byTool.get(tool)!;
          tools.push({ name, description: `${spec.description ?? tool} (external MCP server "${config.name}")`, inputSchema: spec.inputSchema, serverId: config.id, tool });
        }
      } catch (err) {
        errors.push({ server: config.name, error: err instanceof Error ? err.message : String(err) });
      }
    }));
    tools.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    return ok({ tools, errors } satisfies AgentToolsReply);
  },

  async [MCP_SERVERS_ROUTES.call](req, _ctx, state) {
    const body = req.body as Partial<Record<keyof ToolCallRequest, unknown>> | null;
    if (typeof body?.agentId !== 'string' || typeof body.tool !== 'string') throw validationError('body.agentId and body.tool must be strings');
    const args = body.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw validationError('body.arguments must be an object');
    const config = await mustGet(req, state);
    // Checked again at every call: the config may have changed since the session was offered the tool.
    if (!config.enabled) throw new RoostError('FORBIDDEN', `MCP server "${config.name}" is disabled`);
    if (!mayUse(config, body.agentId)) throw new RoostError('FORBIDDEN', `agent ${body.agentId} may not use MCP server "${config.name}"`);
    const result = await state.pool.call(state.store.open(config), body.tool, args as Record<string, unknown>);
    return ok({ content: result.content ?? [], isError: result.isError === true } satisfies ToolCallReply);
  },
};
