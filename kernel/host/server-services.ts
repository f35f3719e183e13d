// HostServices for server extensions: the kernel's key/value store, bus, audit log, WebSocket clients,
// MCP tokens and the route table (for `call`). There is no terminal: questions take their default.
import { hostname } from 'node:os';
import { RoostError } from '../../protocol/errors.js';
import { EXTENSION_KEY_SECRET } from '../auth/sealing-key.js';
import type { Kernel } from '../kernel.js';
import { routeDeclarations } from '../http/route-declarations.js';
import { listedTools } from '../mcp/tool-list.js';
import type { WsHub } from '../ws/hub.js';
import { runExec, type ExecLaunch } from './exec.js';
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
    token: (request) => k.mcpTokens.mint(request, source),
    // Names are the extension's own: two extensions never compete for one singleton.
    leader: (singleton) => k.leadership.leads(`${name}:${singleton}`),
    systemMetrics: (scrape) => (scrape ? k.metrics.scrape() : k.metrics.sample()),
    mcpTools: async () => listedTools(k),
    routes: async (prefix) => k.routes.all().filter((r) => r.decl.path.startsWith(prefix)).map((r) => ({ method: r.decl.method, path: r.decl.path, extension: r.owner })),
    routeTable: async () => routeDeclarations(k.routes),
    tenantPlan: (tenantId) => planWithReadOnly(k, tenantId),
    setTenantPlan: async (tenantId, change) => {
      const before = await k.tenantPlans.mustGet(tenantId);
      const after = await k.tenantPlans.set(tenantId, change);
      k.audit.append({ tenantId, actor: source, action: 'tenant.plan_changed', resource: `tenant:${tenantId}`, detail: { from: pick(before), to: pick(after) } });
      return planWithReadOnly(k, tenantId);
    },
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
    restart: async (reason) => {
      k.audit.append({ tenantId: null, actor: source, action: 'server.restart', resource: 'server', detail: { reason } });
      k.requestRestart(`${name}: ${reason}`);
    },
  };
}

const pick = (plan: { plan: string; billingStatus: string }) => ({ plan: plan.plan, billingStatus: plan.billingStatus });

/** What `tenant_plan` answers: the plan with the tenant's read-only state beside it. */
async function planWithReadOnly(k: Kernel, tenantId: string) {
  const plan = await k.tenantPlans.mustGet(tenantId);
  const readOnly = await k.readOnly.get(tenantId);
  return { ...plan, readOnlyAt: readOnly?.at ?? null, readOnly: readOnly?.readOnly ?? false };
}
