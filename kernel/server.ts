// Boot: open the kernel database, wire the kernel, discover extensions, listen for HTTP, WebSocket and
// MCP on one port (live), then start the eager extensions (ready). `close()` stops in the reverse order
// within config.shutdownTimeoutMs: nothing restarts any more, WebSockets get 1001, in-flight requests
// finish, extensions stop (stdin closed, then SIGTERM, then SIGKILL), the databases are checkpointed.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { StopOptions } from '../protocol/child.js';
import { RoostError } from '../protocol/errors.js';
import { packageRoot } from '../protocol/paths.js';
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
import { loadConfig, type ServerConfig } from './config.js';
import { createLog, stderrLevel } from './log.js';
import { extensionKey, loadSealingKey } from './auth/sealing-key.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import { httpServerOptions, limitConnections } from './http/connection-limits.js';
import { Dispatcher, type EmbeddedRoute } from './http/dispatch.js';
import { HttpDrain } from './http/drain.js';
import { listenUiPort } from './http/ui-port.js';
import { retryAfterHeader } from './http/retry-after.js';
import { OPERATIONAL_MODE_KEY } from './http/routes/system.js';
import { RouteTable } from './http/route-table.js';
import { extensionSettings } from './host/extension-settings.js';
import { ExtensionLauncher } from './host/launcher.js';
import { ExtensionLogs } from './host/log-limit.js';
import { followRemotePluginChanges } from './host/plugin-changes.js';
import { ExtensionRegistry } from './host/registry.js';
import { serverServices } from './host/server-services.js';
import type { Kernel } from './kernel.js';
import { createMcpHandler } from './mcp/front.js';
import { Leadership } from './leader.js';
import { McpTokens } from './mcp/tokens.js';
import { KernelMetrics, sqliteSizes } from './metrics.js';
import { Settings } from './settings.js';
import { kernelSecret } from './storage/pg-roles.js';
import { isPostgres, openKernelDatabase, pgRelays, storageFor, tenantWorkspaces } from './storage/provision.js';
import { WsHub } from './ws/hub.js';
import { MemoryTickets, SharedTickets } from './ws/tickets.js';

export interface RunningServer {
  kernel: Kernel;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The only environment an extension process inherits; everything else arrives in init or via `secret`. */
// ROOST_CLOCK: `test` gives extensions that keep time (schedules, workflows) a clock tests move by hand.
const EXTENSION_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'NODE_ENV', 'SYSTEMROOT', 'ROOST_CLOCK'];

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
/**
 * Connections the kernel may queue before accepting them: Node's default (511) overflows when a thousand
 * clients connect at once, and each refused SYN costs its client a 1 s retransmit. Linux caps it at somaxconn.
 */
const LISTEN_BACKLOG = 4096;
/** Kept back at the end of the deadline for the audit flush and the database checkpoint. */
const DATABASE_CLOSE_MS = 250;

export async function startServer(overrides: Partial<ServerConfig> = {}, embed: EmbedOptions = {}): Promise<RunningServer> {
  const config = { ...loadConfig(), ...overrides };
  const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const log = createLog(config.logFormat);
  const { db, schemaVersion } = await openKernelDatabase(config);
  const sealingKey = await loadSealingKey(config.sealingKey, config.dataDir);
  if (isPostgres(config) && !config.sealingKey) log('warn', `ROOST_SEALING_KEY is unset: this instance seals with ${config.dataDir}/sealing.key, which other instances on the same database do not share; give every instance the same ROOST_SEALING_KEY`);
  // Everything opened from here on is closed in reverse order, by close() or when start-up fails.
  const closers: Array<() => unknown> = [async () => {
    // A clean file set for the next start and for copies: the WAL folded into the database.
    if (!isPostgres(config)) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined);
    await db.destroy();
  }];
  let deadline = Infinity;
  let closing: Promise<void> | undefined;
  const shutdown = () => (closing ??= (async () => {
    deadline = Date.now() + config.shutdownTimeoutMs;
    for (const close of closers.splice(0).reverse()) await close();
  })());
  try {
    await db('tenants').insert({ id: DEFAULT_TENANT, org: 'default', created_at: new Date().toISOString() }).onConflict('id').ignore();

    const keys = new KeyStore(db, config.keyTtlDays);
    const routes = new RouteTable();
    const kernel = {
      config, version, startedAt: Date.now(), db, schemaVersion, log, routes, keys,
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
    let link: BusLink | undefined;
    if (isPostgres(config)) {
      link = new BusLink(config.databaseUrl!, db, kernel.bus, log);
      await link.start();
      closers.push(() => link!.close());
    }
    const relays = pgRelays(config);
    if (relays) closers.push(() => relays.close());
    const ws = new WsHub(kernel, isPostgres(config) ? new SharedTickets(db) : new MemoryTickets());
    const unsubscribers = new Map<string, Array<() => void>>();
    // Each extension runs sandboxed with this environment (HOME and TMPDIR in its own data folder added).
    const extensionEnv = Object.fromEntries(EXTENSION_ENV.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
    const launcher = new ExtensionLauncher(config, extensionEnv, log);
    // Closed after the extensions have stopped (closers run last first): their cgroups are empty by then.
    closers.push(() => launcher.close());
    const extensionLogs = new ExtensionLogs(config.extensionLogLimit, log);
    closers.push(() => extensionLogs.close());
    kernel.registry = new ExtensionRegistry({
      db,
      crashBudget: config.crashBudget,
      crashWindowMs: config.crashWindowMs,
      startStallMs: config.extensionStartStallMs,
      startCapMs: config.extensionStartCapMs,
      waitMs: config.extensionWaitMs,
      idleMs: config.extensionIdleSeconds * 1000,
      busy: (name) => ws.hasStreamSubscribers(name),
      storageFor: (name) => storageFor(config, db, name, relays),
      servicesFor: (name) => {
        const ext = kernel.registry.get(name);
        const services = serverServices(kernel, ws, name, ext.manifest.dir, { names: new Set(ext.manifest.server?.secrets), extensionKey: extensionKey(sealingKey, name) }, (cwd) => launcher.execLaunch(ext.manifest, ext.grants, cwd));
        // What it logs counts against its log rate limit.
        return { ...services, output: (text) => extensionLogs.write(name, 'info', `[${name}] ${text}`), log: (level, message, fields) => extensionLogs.write(name, level, message, fields) };
      },
      // What every extension learns at init; the operational mode then follows the system.operational_mode event.
      initConfig: async (name) => ({
        // An extension's own settings: ROOST_EXT_<NAME>_… and its manifest's [settings] (see docs/configuration.md).
        settings: extensionSettings(kernel.registry.get(name).manifest, process.env),
        serverUrl: `http://127.0.0.1:${server.address() ? (server.address() as AddressInfo).port : config.port}`,
        allowedRoots: config.allowedRoots,
        tenantWorkspaces: tenantWorkspaces(config) ?? null,
        // Work another instance held (sessions) is looked for as often as a singleton's leadership is retried.
        takeoverMs: config.leaderRetryMs,
        protectedFiles: config.protectedFiles,
        // The server's address as people reach it (ROOST_PUBLIC_URL), for links an extension hands out.
        publicUrl: config.publicUrl ?? null,
        dataDir: config.dataDir,
        operationalMode: await kernel.settings.get(DEFAULT_TENANT, OPERATIONAL_MODE_KEY, 'normal'),
      }),
      launch: (manifest, grants) => launcher.launch(manifest, grants),
      log,
      stderrLine: (name, line) => extensionLogs.write(name, stderrLevel(line), `[${name}] ${line}`),
      onChange(ext, change) {
        const name = ext.manifest.name;
        for (const off of unsubscribers.get(name) ?? []) off();
        unsubscribers.delete(name);
        if (change === 'unloaded') {
          void kernel.leadership.resignOwner(name);
          return routes.removeOwner(name);
        }
        launcher.check(ext.manifest); // an extension that could only run unsandboxed is refused here, before it is routed
        routes.addAll(name, ext.manifest.server?.routes ?? [], front.kernelServes);
        // `subscribe`: once per deployment, by the instance that published; `broadcast`: on every instance.
        const patterns = [...(ext.manifest.server?.subscribe ?? []).map((p) => [p, false] as const), ...(ext.manifest.server?.broadcast ?? []).map((p) => [p, true] as const)];
        unsubscribers.set(name, patterns.map(([pattern, everywhere]) =>
          kernel.bus.subscribe(pattern, (event) => {
            if ((event.source === name && !event.remote) || (event.remote && !everywhere) || kernel.registry.get(name).state === 'unloaded') return;
            kernel.registry.notify(name, { type: 'event', topic: event.topic, payload: event.payload, tenantId: event.tenantId }).catch(() => undefined);
          }),
        ));
      },
    });
    closers.push(() => kernel.registry.closeAll(stopGraces(deadline)));
    kernel.dispatcher = new Dispatcher(routes, kernel.registry, config.checkResponses);
    kernel.ws = ws;
    kernel.metrics = new KernelMetrics({
      registry: () => kernel.registry,
      wsClients: () => ws.size,
      databaseSizes: async () => {
        if (!isPostgres(config)) return sqliteSizes(config.dataDir);
        const { rows } = await db.raw<{ rows: Array<{ name: string; bytes: number }> }>('SELECT current_database() AS name, pg_database_size(current_database()) AS bytes');
        return rows.map((row) => ({ database: `postgres:${row.name}`, bytes: Number(row.bytes) }));
      },
      busBacklog: () => link?.backlog ?? 0,
      droppedLogLines: () => extensionLogs.droppedTotals(),
      diskFigures: () => launcher.diskFigures(),
    });
    closers.push(() => kernel.metrics.close());
    const front = createApp(kernel);
    if (embed.routes) kernel.dispatcher.embed(embed.routes, front.kernelServes);

    await ensureOwnerKey(kernel);
    const mcp = createMcpHandler(kernel);
    // First of the koa middleware (koa composes `middleware` in order), so it sees every error's final body.
    front.koa.middleware.unshift(retryAfterHeader());
    const handler = front.koa.callback();
    // One drain per listening port (the main one, and ROOST_UI_PORT's when set).
    const serveDraining = (drain: HttpDrain) => (req: IncomingMessage, res: ServerResponse) => {
      drain.track(res);
      if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) return void mcp(req, res);
      void handler(req, res);
    };
    // In-flight requests finish while the extensions serving them still run; the extensions' stop keeps its share.
    const drainDeadline = () => deadline - Math.min(EXTENSION_STOP_MAX_MS, config.shutdownTimeoutMs * EXTENSION_STOP_SHARE);
    const drain = new HttpDrain();
    const server: Server = createServer(httpServerOptions(config), serveDraining(drain));
    server.keepAliveTimeout = 65_000;
    answerClientErrors(server);
    limitConnections(server, config, () => kernel.metrics.connectionRefused());
    const uiDrain = new HttpDrain();
    let uiServer: Server | undefined;
    closers.push(() => Promise.all([drain.drain(server, drainDeadline()), uiServer && uiDrain.drain(uiServer, drainDeadline())]));
    closers.push(() => ws.close());
    ws.attach(server);
    const tokenSweep = setInterval(() => void kernel.mcpTokens.pruneExpired().catch(() => undefined), 3_600_000).unref();
    closers.push(() => clearInterval(tokenSweep));
    // Runs first on close: from here on no extension starts or restarts, and readiness says "stopping".
    closers.push(() => kernel.registry.beginClose());

    closers.push(followRemotePluginChanges(kernel.bus, kernel.registry, log));
    await kernel.registry.discover(config.extensionDirs);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, config)));
      server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => resolve());
    });
    if (config.uiPort !== undefined) {
      uiServer = await listenUiPort(config.uiPort, config.host, serveDraining(uiDrain), (s) => {
        limitConnections(s, config, () => kernel.metrics.connectionRefused());
        ws.attach(s);
      }, httpServerOptions(config));
    }
    const port = (server.address() as AddressInfo).port;
    const running: RunningServer = {
      kernel,
      port,
      url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      close: shutdown,
    };
    embed.onListening?.(running);
    await kernel.registry.startEager();
    return running;
  } catch (err) {
    await shutdown();
    throw err;
  }
}

/** A port someone else holds is the one start-up failure a person fixes at once: say so, and how. */
function listenError(err: NodeJS.ErrnoException, config: ServerConfig): Error {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') {
    return new RoostError('PORT_IN_USE', `port ${config.port} is already in use on ${config.host}: stop what holds it, or start on another port with --port (or ROOST_PORT; --port 0 takes a free one)`);
  }
  if (err.code === 'EACCES') return new RoostError('PORT_DENIED', `${where} may not be bound by this user (ports below 1024 need privileges): choose another with --port`);
  return err;
}

/** Instances sharing a PostgreSQL database share their buckets; one process keeps them in memory. */
function rateLimiterFor(config: ServerConfig, db: Knex, log: (level: string, message: string) => void): RateLimiter {
  return isPostgres(config) ? new SharedRateLimiter(db, config.rateLimitPerMinute, log) : new MemoryRateLimiter(config.rateLimitPerMinute);
}

/**
 * Splits what is left of the deadline between an extension's own exit once its stdin closes (it allows
 * itself 3 s, see extensions/_shared/extension.ts) and SIGTERM; SIGKILL follows.
 */
function stopGraces(deadline: number): StopOptions {
  const left = Math.max(200, deadline - Date.now() - DATABASE_CLOSE_MS);
  return { closeGraceMs: Math.round(Math.min(3_500, left * 0.6)), termGraceMs: Math.round(Math.min(1_500, left * 0.4)) };
}
