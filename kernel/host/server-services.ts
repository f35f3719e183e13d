// HostServices for server extensions: the kernel's key/value store, bus, audit log, WebSocket clients,
// MCP tokens and the route table (for `call`). There is no terminal: questions take their default.
import { hostname } from 'node:os';
import { RoostError } from '../../protocol/errors.js';
import { EXTENSION_KEY_SECRET } from '../auth/sealing-key.js';
import { KeyGrants } from '../auth/key-grants.js';
import type { Role } from '../auth/keys.js';
import type { Kernel } from '../kernel.js';
import { routeDeclarations } from '../http/route-declarations.js';
import { kernelSecret } from '../storage/pg-roles.js';
import { listedTools } from '../mcp/tool-list.js';
import type { WsHub } from '../ws/hub.js';
import { runExec, type ExecLaunch } from './exec.js';
import { TenantHooks } from '../tenants/tenant-hooks.js';
import type { HostServices } from './services.js';

/** The most queues one extension may report (`queue_depth`): each is a series in /metrics. */
const MAX_QUEUES_PER_EXTENSION = 20;

/** `exec` runs commands as the extension's own sandbox and environment: never with the server's secrets. */
/** What `secret` answers: the environment variables named, and the extension's own sealing key. */
export interface ExtensionSecrets {
  names: Set<string>;
  extensionKey: string;
}

export function serverServices(k: Kernel, ws: WsHub, name: string, dir: string, secrets: ExtensionSecrets, exec: ExecLaunch): HostServices {
  const source = `extension:${name}`;
  // The key the grant promises makes the tenant one member more: the tenant hooks may refuse it (a plan's limit).
  const hooks = new TenantHooks(k.registry, k.dispatcher);
  const keyGrants = new KeyGrants(k.keys, () => kernelSecret(k.db, 'key_grants'), async (tenantId) => hooks.member(tenantId, await k.keys.countValid(tenantId)));
  return {
    exec: (request) => runExec(request, dir, exec),
    async store(key, value) {
      await k.db('plugin_kv').insert({ plugin: name, key, value, updated_at: new Date().toISOString() }).onConflict(['plugin', 'key']).merge();
    },
    async load(key) {
      const row = await k.db('plugin_kv').where({ plugin: name, key }).first();
      return row ? (row.value as string) : null;
    },
    async metadata(keys) {
      const all: Record<string, unknown> = { language: null, name: 'roost-server', host: hostname(), version: k.version, git: null };
      return keys ? Object.fromEntries(Object.entries(all).filter(([key]) => keys.includes(key))) : all;
    },
    async ask(request) {
      if (request.default !== undefined) return request.default;
      throw new RoostError('VALIDATION_ERROR', `${request.kind} "${request.message}" has no default and the server has no terminal`);
    },
    output: (text) => k.log('info', `[${name}] ${text}`),
    log: (level, message, fields) => k.log(level, message, fields),
    progress: () => undefined,
    emit: (topic, payload, tenantId) => k.bus.publish({ topic, payload, tenantId, source: name }),
    call: (request) => k.dispatcher.call({ ...request, body: request.body ?? null }),
    async secret(secretName) {
      if (secretName === EXTENSION_KEY_SECRET) return secrets.extensionKey;
      if (!secrets.names.has(secretName) && !secretName.startsWith('ROOST_SECRET_')) return null;
      return process.env[secretName] ?? null;
    },
    audit: (entry) => k.audit.append({ tenantId: entry.tenantId, actor: source, action: entry.action, resource: entry.resource, detail: entry.detail }),
    wsSend: (clientId, message) => void ws.send(clientId, message),
    tracing: k.tracing,
    token: (request) => k.mcpTokens.mint(request, source),
    // Names are the extension's own: two extensions never compete for one singleton.
    leader: (singleton) => k.leadership.leads(`${name}:${singleton}`),
    systemMetrics: (scrape) => (scrape ? k.metrics.scrape() : k.metrics.sample()),
    mcpTools: async () => listedTools(k),
    routes: async (prefix) => k.routes.all().filter((r) => r.decl.path.startsWith(prefix)).map((r) => ({ method: r.decl.method, path: r.decl.path, extension: r.owner })),
    routeTable: async () => routeDeclarations(k.routes),
    extensions: async () => k.registry.list().filter((ext) => ext.state !== 'unloaded').map((ext) => ({
      name: ext.manifest.name,
      description: ext.manifest.description,
      tools: ext.manifest.server?.tools.map((tool) => tool.name) ?? [],
    })),
    tenant: async (tenantId) => {
      const row = await k.db('tenants').select('id', 'org', 'created_at').where({ id: tenantId }).first();
      if (!row) throw new RoostError('NOT_FOUND', `tenant ${tenantId} not found`);
      const readOnly = await k.readOnly.get(tenantId);
      return { id: row.id, org: row.org, createdAt: row.created_at, readOnly: readOnly?.readOnly ?? false, readOnlyAt: readOnly?.at ?? null };
    },
    legacyTenantColumns: (columns) => legacyTenantColumns(k, columns),
    setTenantReadOnly: async (tenantId, change) => {
      const before = await k.readOnly.get(tenantId);
      const after = await k.readOnly.set(tenantId, change);
      if (before?.at !== after.at || before?.reason !== after.reason) {
        k.audit.append({ tenantId, actor: source, action: 'tenant.read_only_changed', resource: `tenant:${tenantId}`, detail: { from: before?.at ?? null, to: after.at, reason: after.reason } });
      }
      return after;
    },
    queueDepth(queue, depth) {
      const { queues } = k.registry.get(name);
      if (!queues.has(queue) && queues.size >= MAX_QUEUES_PER_EXTENSION) {
        throw new RoostError('VALIDATION_ERROR', `queue_depth: ${name} already reports ${MAX_QUEUES_PER_EXTENSION} queues, the most one extension may`);
      }
      queues.set(queue, depth);
    },
    keyGrant: (caller, role, ttlSeconds, audience) => keyGrants.grant(name, caller, role as Role, ttlSeconds, audience),
    mintKey: async (grant, label, ttlSeconds) => {
      const { key, record, grant: granted } = await keyGrants.mint(name, grant, label, ttlSeconds);
      k.audit.append({ tenantId: record.tenantId, actor: source, action: 'grant.key_minted', resource: `tenant:${record.tenantId}`, detail: { role: record.role, grantedBy: granted.grantedBy, label: record.label, ...(record.audience ? { audience: record.audience } : {}) } });
      return { key, keyHash: record.keyHash, tenantId: record.tenantId, role: record.role, expiresAt: record.expiresAt, audience: record.audience };
    },
    revokeKey: async (keyHash) => ({ revoked: await k.keys.revokeMinted(name, keyHash) }),
    restart: async (reason) => {
      k.audit.append({ tenantId: null, actor: source, action: 'server.restart', resource: 'server', detail: { reason } });
      k.requestRestart(`${name}: ${reason}`);
    },
  };
}

/**
 * Columns of the tenants table the kernel no longer uses (plan, limits, billing_status: what the kernel
 * held before an extension owned it), for that extension to take over once. The kernel's own columns are
 * not on offer; a column the table lacks is left out.
 */
const KERNEL_TENANT_COLUMNS = new Set(['id', 'org', 'created_at', 'read_only_at', 'read_only_reason']);

async function legacyTenantColumns(k: Kernel, columns: string[]): Promise<Array<Record<string, unknown>>> {
  if (!Array.isArray(columns) || columns.some((c) => typeof c !== 'string' || KERNEL_TENANT_COLUMNS.has(c))) {
    throw new RoostError('VALIDATION_ERROR', 'legacy_tenant_columns takes the names of columns the kernel no longer uses');
  }
  const present = Object.keys(await k.db('tenants').columnInfo());
  const wanted = columns.filter((c) => present.includes(c));
  return k.db('tenants').select('id', ...wanted).orderBy('id');
}
