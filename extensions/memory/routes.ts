// REST routes: the seed's MCP HTTP API (agentId in the body, tenant from the caller's key), an agent's
// memories for people, the tenant's memory settings, and the internal route sessions read a new
// session's memory context from.
import { join } from 'node:path';
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { mustFindAgent } from './agents.js';
import type { Keyring } from './keyring.js';
import { MAX_CONTEXT_MEMORIES, memoryContext } from './context.js';
import { deleteMemory, memoryShelf, recallMemory, saveMemory, toMemory, type AgentRef } from './memories.js';
import { contextMemoriesOf, readAgentSettings, readSettings, writeAgentSettings, writeSettings, type AgentMemorySettings, type MemorySettings } from './settings.js';
import { MEMORY_ROUTES, type PlainMemory, type RecallMemoryRequest, type SaveMemoryRequest } from './contract.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const MAX_QUERY = 2_000;
const MAX_UNSENT = 200;

/** The agent of the path, checked to be one of the caller's tenant (404 otherwise). */
async function agentOfPath(req: RouteRequest, ctx: ExtensionContext): Promise<AgentRef> {
  await mustFindAgent(ctx, { requestId: req.id }, req.params.id!);
  return { tenantId: req.auth.tenantId, agentId: req.params.id! };
}

function searchOf(req: RouteRequest, name: string): string | undefined {
  const value = queryString(req.query, name);
  if (value !== undefined && value.length > MAX_QUERY) throw validationError(`query.${name} must be at most ${MAX_QUERY} characters`);
  return value || undefined;
}

async function agentSettingsView(ctx: ExtensionContext, agent: AgentRef) {
  const own = await readAgentSettings(ctx, agent.tenantId, agent.agentId);
  return { agentId: agent.agentId, ...own, effectiveContextMemories: await contextMemoriesOf(ctx, agent.tenantId, agent.agentId) };
}

export const routes: Record<string, RouteHandler<Keyring>> = {
  async [MEMORY_ROUTES.save](req, ctx, keyring) {
    const body = validate<SaveMemoryRequest>(schema(ctx, 'mcp-save-memory.json'), req.body);
    await mustFindAgent(ctx, { requestId: req.id }, body.agentId);
    const saved = await saveMemory(ctx, keyring, { tenantId: req.auth.tenantId, agentId: body.agentId }, body.key, body.content);
    return saved.created ? created(saved) : ok(saved);
  },

  async [MEMORY_ROUTES.recall](req, ctx, keyring) {
    const body = validate<RecallMemoryRequest>(schema(ctx, 'mcp-recall-memory.json'), req.body);
    await mustFindAgent(ctx, { requestId: req.id }, body.agentId);
    return ok(await recallMemory(ctx, keyring, { tenantId: req.auth.tenantId, agentId: body.agentId }, body));
  },

  async 'GET /api/agents/:id/memories'(req, ctx, keyring) {
    const agent = await agentOfPath(req, ctx);
    const { limit, offset } = page(req.query);
    const { records, hasMore } = await (await memoryShelf(ctx, keyring)).find({ tenantId: agent.tenantId, ownerId: agent.agentId }, { query: searchOf(req, 'search'), limit, offset });
    return ok({ agentId: agent.agentId, memories: records.map(toMemory), hasMore });
  },

  async 'DELETE /api/agents/:id/memories/:key'(req, ctx, keyring) {
    const agent = await agentOfPath(req, ctx);
    await deleteMemory(ctx, keyring, agent, req.params.key!);
    ctx.host.audit('memory.deleted', `agent:${agent.agentId}`, { by: req.auth.actor });
    return noContent();
  },

  async 'GET /api/settings/memory'(req, ctx) {
    return ok(await readSettings(ctx, req.auth.tenantId));
  },

  async 'PUT /api/settings/memory'(req, ctx) {
    const change = validate<Partial<MemorySettings>>(schema(ctx, 'settings-put.json'), req.body);
    const settings = await writeSettings(ctx, req.auth.tenantId, change);
    ctx.host.audit('memory.settings_updated', `tenant:${req.auth.tenantId}`, change);
    return ok(settings);
  },

  async 'GET /api/agents/:id/memory-settings'(req, ctx) {
    const agent = await agentOfPath(req, ctx);
    return ok(await agentSettingsView(ctx, agent));
  },

  async 'PUT /api/agents/:id/memory-settings'(req, ctx) {
    const settings = validate<AgentMemorySettings>(schema(ctx, 'agent-settings-put.json'), req.body);
    const agent = await agentOfPath(req, ctx);
    await writeAgentSettings(ctx, agent.tenantId, agent.agentId, settings);
    ctx.host.audit('memory.agent_settings_updated', `agent:${agent.agentId}`, settings);
    return ok(await agentSettingsView(ctx, agent));
  },

  // On-chain memories (chainchat sends them): the txid a memory was sent in, and the memories not sent yet.
  async [MEMORY_ROUTES.setTxid](req, ctx, keyring) {
    const { txid } = validate<{ txid: string }>(schema(ctx, 'txid-put.json'), req.body);
    const owner = { tenantId: req.auth.tenantId, ownerId: req.params.id! };
    if (!(await (await memoryShelf(ctx, keyring)).setTxid(owner, req.params.key!, txid))) throw notFound(`memory "${req.params.key}"`);
    return ok({ agentId: req.params.id, key: req.params.key, txid });
  },

  async [MEMORY_ROUTES.unsent](req, ctx, keyring) {
    const raw = Number(queryString(req.query, 'limit') ?? MAX_UNSENT);
    if (!Number.isInteger(raw) || raw < 1 || raw > MAX_UNSENT) throw validationError(`query.limit must be an integer from 1 to ${MAX_UNSENT}`);
    const unsent = await (await memoryShelf(ctx, keyring)).unsent(req.auth.tenantId, raw);
    return ok({ memories: unsent.map(({ ownerId, record }): PlainMemory => ({ agentId: ownerId, key: record.name, content: record.content })) });
  },

  async [MEMORY_ROUTES.context](req, ctx, keyring) {
    const raw = queryString(req.query, 'limit');
    const limit = raw === undefined || raw === '' ? undefined : Number(raw);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0 || limit > MAX_CONTEXT_MEMORIES)) {
      throw validationError(`query.limit must be an integer from 0 to ${MAX_CONTEXT_MEMORIES}`);
    }
    return ok(await memoryContext(ctx, keyring, { tenantId: req.auth.tenantId, agentId: req.params.id! }, { query: searchOf(req, 'query'), limit }));
  },
};
