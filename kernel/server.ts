// Boot: open the kernel database, wire the kernel, discover extensions, listen for HTTP, WebSocket and
// MCP on one port (live), then start the eager extensions (ready). `close()` stops in the reverse order
// within config.shutdownTimeoutMs: nothing restarts any more, WebSockets get 1001, in-flight requests
// finish, extensions stop (stdin closed, then SIGTERM, then SIGKILL), the databases are checkpointed.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { StopOptions } from '../lib/child.js';
import { RoostError } from '../protocol/errors.js';
import { packageRoot } from '../lib/paths.js';
import { AuditLog } from './audit/log.js';
import { Authenticator } from './auth/identity.js';
import { clientAddresses } from './http/client-address.js';
import { DEFAULT_TENANT, KeyStore } from './auth/keys.js';
import { TenantReadOnly } from './tenants/read-only.js';
import { MemoryRateLimiter, type RateLimiter } from './auth/rate-limit.js';
import { SharedRateLimiter } from './auth/rate-limit-shared.js';
import { ensureOwnerKey } from './auth/owner-key.js';
import { EventBus } from './bus.js';
import { BusLink } from './bus-link.js';
import { ResponseCache } from './http/response-cache.js';
import { loadConfig, type ServerConfig } from './config.js';
import { createLog, type Log } from './log.js';
import { loadSealingKey } from './auth/sealing-key.js';
import { createApp, type HttpFront } from './http/app.js';
import { Dispatcher, type EmbeddedRoute } from './http/dispatch.js';
import { extraPorts } from './http/extra-ports.js';
import { Listeners } from './http/listeners.js';
import { RouteTable } from './http/route-table.js';
import { hostExtensions, type Hosting } from './host/hosting.js';
import { followRemotePluginChanges } from './host/plugin-changes.js';
import type { Kernel } from './kernel.js';
import { createMcpHandler } from './mcp/front.js';
import { Leadership } from './leader.js';
import { McpTokens } from './mcp/tokens.js';
import { KernelMetrics, sqliteSizes } from './metrics.js';
import { Settings } from './settings.js';
import { kernelSecret } from './storage/pg-roles.js';
import { readManifestDirs } from './host/manifest-dirs.js';
import { isPostgres, openKernelDatabase, pgRelays, storedNothing } from './storage/provision.js';
import { carryRenamedExtensions } from './storage/renames.js';
import { WsHub } from './ws/hub.js';
import { MemoryTickets, SharedTickets } from './ws/tickets.js';
import { startTracing } from './tracing/tracing.js';

export interface RunningServer {
  kernel: Kernel;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What only a program embedding the kernel can pass (never configuration): see EmbeddedRoute. */
export interface EmbedOptions {
  routes?: EmbeddedRoute[];
  /** Called once the port listens (the server is live), before the eager extensions have started. */
  onListening?(server: RunningServer): void;
  /** Asked for a graceful restart (svc_restart_server): `roost serve` closes this server, then re-executes (cli/commands/serve-restart.ts). */
  onRestart?(reason: string): void;
}

/** Of the shutdown deadline, what the extensions' stop is sure to keep (the HTTP drain gets the rest). */
const EXTENSION_STOP_SHARE = 0.3;
const EXTENSION_STOP_MAX_MS = 3_000;
/** Kept back at the end of the deadline for the audit flush and the database checkpoint. */
const DATABASE_CLOSE_MS = 250;

/** What start-up opens, closed in reverse order by close() or when start-up fails; `deadline` is set when closing begins. */
class Closers {
  deadline = Infinity;
  private readonly closers: Array<() => unknown> = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly timeoutMs: number) {}

  push = (close: () => unknown): void => void this.closers.push(close);

  close = (): Promise<void> => (this.closing ??= (async () => {
    this.deadline = Date.now() + this.timeoutMs;
    for (const close of this.closers.splice(0).reverse()) await close();
  })());
}

export async function startServer(overrides: Partial<ServerConfig> = {}, embed: EmbedOptions = {}): Promise<RunningServer> {
  const config = { ...loadConfig(), ...overrides };
  const log = createLog(config.logFormat);
  const closers = new Closers(config.shutdownTimeoutMs);
  try {
    const { db, schemaVersion, sealingKey } = await openStorage(config, log, closers);
    const kernel = wireKernel(config, log, db, schemaVersion, embed, closers);
    kernel.tracing = await startTracing(process.env, kernel.version, log);
    if (kernel.tracing) closers.push(() => kernel.tracing!.shutdown());
    const link = await linkInstances(kernel, closers);
    const relays = pgRelays(config);
    if (relays) closers.push(() => relays.close());
    const ws = new WsHub(kernel, isPostgres(config) ? new SharedTickets(db) : new MemoryTickets());
    let listeners: Listeners | undefined;
    const cache = new ResponseCache(config.responseCache);
    const hosting = hostExtensions({ kernel, ws, sealingKey, relays, cache, port: () => listeners?.port ?? config.port, kernelServes: (method, path) => front.kernelServes(method, path), onClose: closers.push });
    kernel.registry = hosting.registry;
    closers.push(() => kernel.registry.closeAll(stopGraces(closers.deadline)));
    kernel.dispatcher = new Dispatcher(kernel.routes, kernel.registry, config.checkResponses, cache, (owner) => kernel.registry.cold(owner) && storedNothing(config, owner));
    kernel.ws = ws;
    kernel.metrics = kernelMetrics(kernel, hosting, link);
    closers.push(() => kernel.metrics.close());
    const front = createApp(kernel);
    if (embed.routes) kernel.dispatcher.embed(embed.routes, front.kernelServes);
    await ensureOwnerKey(kernel);
    listeners = new Listeners(config, { handler: httpAndMcp(kernel, front), attach: (server) => ws.attach(server), onRefused: () => kernel.metrics.connectionRefused(), log });
    openFronts(kernel, listeners, closers);
    closers.push(followRemotePluginChanges(kernel.bus, kernel.registry, log));
    const found = await readManifestDirs(config.extensionDirs, log);
    // An extension renamed since the last start takes its data, grants and settings with it (storage/renames.ts).
    for (const carried of await carryRenamedExtensions(config, db, found)) log('info', `extension renamed: ${carried} (its data carried)`);
    await kernel.registry.discover(found);
    const loaded = kernel.registry.list().filter((ext) => ext.state !== 'unloaded').map((ext) => ext.manifest);
    const port = await listeners.listen(extraPorts(loaded, process.env));
    const running: RunningServer = { kernel, port, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, close: closers.close };
    embed.onListening?.(running);
    await kernel.registry.startEager();
    return running;
  } catch (err) {
    await closers.close();
    throw err;
  }
}

/** The kernel database (migrated) and the sealing key; the default tenant exists. */
async function openStorage(config: ServerConfig, log: Log, closers: Closers): Promise<{ db: Knex; schemaVersion: number; sealingKey: Buffer }> {
  const { db, schemaVersion } = await openKernelDatabase(config);
  closers.push(async () => {
    // A clean file set for the next start and for copies: the WAL folded into the database.
    if (!isPostgres(config)) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined);
    await db.destroy();
  });
  const sealingKey = await loadSealingKey(config.sealingKey, config.dataDir);
  if (isPostgres(config) && !config.sealingKey) log('warn', `ROOST_SEALING_KEY is unset: this instance seals with ${config.dataDir}/sealing.key, which other instances on the same database do not share; give every instance the same ROOST_SEALING_KEY`);
  await db('tenants').insert({ id: DEFAULT_TENANT, org: 'default', created_at: new Date().toISOString() }).onConflict('id').ignore();
  return { db, schemaVersion, sealingKey };
}

/** The kernel's own services; the registry, dispatcher, WebSocket hub and metrics are added as they are made. */
function wireKernel(config: ServerConfig, log: Log, db: Knex, schemaVersion: number, embed: EmbedOptions, closers: Closers): Kernel {
  const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const keys = new KeyStore(db, config.keyTtlDays);
  const kernel = {
    config, version, startedAt: Date.now(), db, schemaVersion, log, keys,
    routes: new RouteTable(),
    readOnly: new TenantReadOnly(db),
    bus: new EventBus(log),
    audit: new AuditLog(db, config.dataDir, log),
    auth: new Authenticator(keys, config.localAuthRequired, clientAddresses(config.trustedProxies)),
    rateLimiter: rateLimiterFor(config, db, log),
    settings: new Settings(db),
    mcpTokens: new McpTokens(db),
    leadership: new Leadership(isPostgres(config) ? config.databaseUrl : undefined, config.leaderRetryMs, log, () => kernelSecret(db, 'leader_salt')),
    requestRestart(reason: string) {
      if (!embed.onRestart) throw new RoostError('CONFLICT', 'this server was not started by `roost serve`, which is what starts it again: restart it the way it was started');
      log('info', `restart requested: ${reason}`);
      // After the answer to whoever asked has gone out.
      setTimeout(() => embed.onRestart!(reason), 50).unref();
    },
  } as Kernel;
  closers.push(() => kernel.audit.flush());
  closers.push(() => kernel.rateLimiter.close?.());
  closers.push(() => kernel.leadership.close());
  return kernel;
}

/** Instances sharing a PostgreSQL database share the bus (LISTEN/NOTIFY); one process needs no link. */
async function linkInstances(kernel: Kernel, closers: Closers): Promise<BusLink | undefined> {
  if (!isPostgres(kernel.config)) return undefined;
  const link = new BusLink(kernel.config.databaseUrl!, kernel.db, kernel.bus, kernel.log);
  await link.start();
  closers.push(() => link.close());
  return link;
}

function kernelMetrics(kernel: Kernel, hosting: Hosting, link: BusLink | undefined): KernelMetrics {
  const { config, db } = kernel;
  return new KernelMetrics({
    registry: () => kernel.registry,
    wsClients: () => kernel.ws.size,
    databaseSizes: async () => {
      if (!isPostgres(config)) return sqliteSizes(config.dataDir);
      const { rows } = await db.raw<{ rows: Array<{ name: string; bytes: number }> }>('SELECT current_database() AS name, pg_database_size(current_database()) AS bytes');
      return rows.map((row) => ({ database: `postgres:${row.name}`, bytes: Number(row.bytes) }));
    },
    busBacklog: () => link?.backlog ?? 0,
    droppedLogLines: () => hosting.logs.droppedTotals(),
    diskFigures: () => hosting.launcher.diskFigures(),
  });
}

/** One handler for every port: MCP at /mcp, health probes and cached reads first (http/fast-front.ts), the rest through koa. */
function httpAndMcp(kernel: Kernel, front: HttpFront): (req: IncomingMessage, res: ServerResponse) => void {
  const mcp = createMcpHandler(kernel);
  const handler = front.withFastFront(front.koa.callback());
  return (req, res) => {
    if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) return void mcp(req, res);
    void handler(req, res);
  };
}

/** What closes with the fronts: the ports drain, WebSockets get 1001, expired MCP tokens stop being swept. */
function openFronts(kernel: Kernel, listeners: Listeners, closers: Closers): void {
  const { config } = kernel;
  // In-flight requests finish while the extensions serving them still run; the extensions' stop keeps its share.
  closers.push(() => listeners.drain(closers.deadline - Math.min(EXTENSION_STOP_MAX_MS, config.shutdownTimeoutMs * EXTENSION_STOP_SHARE)));
  closers.push(() => kernel.ws.close());
  const tokenSweep = setInterval(() => void kernel.mcpTokens.pruneExpired().catch(() => undefined), 3_600_000).unref();
  closers.push(() => clearInterval(tokenSweep));
  // Runs first on close: from here on no extension starts or restarts, and readiness says "stopping".
  closers.push(() => kernel.registry.beginClose());
}

/** Instances sharing a PostgreSQL database share their buckets; one process keeps them in memory. */
function rateLimiterFor(config: ServerConfig, db: Knex, log: (level: string, message: string) => void): RateLimiter {
  return isPostgres(config) ? new SharedRateLimiter(db, config.rateLimitPerMinute, log) : new MemoryRateLimiter(config.rateLimitPerMinute);
}

/**
 * Splits what is left of the deadline between an extension's own exit once its stdin closes (it allows
 * itself 3 s, see sdk/extension.ts) and SIGTERM; SIGKILL follows.
 */
function stopGraces(deadline: number): StopOptions {
  const left = Math.max(200, deadline - Date.now() - DATABASE_CLOSE_MS);
  return { closeGraceMs: Math.round(Math.min(3_500, left * 0.6)), termGraceMs: Math.round(Math.min(1_500, left * 0.4)) };
}
