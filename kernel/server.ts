// Boot: open the kernel database, wire the kernel, discover and start extensions, listen for HTTP,
// WebSocket and MCP on one port. `close()` stops in the reverse order.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../protocol/paths.js';
import { AuditLog } from './audit/log.js';
import { Authenticator } from './auth/identity.js';
import { DEFAULT_TENANT, KeyStore } from './auth/keys.js';
import { RateLimiter } from './auth/rate-limit.js';
import { ensureOwnerKey } from './auth/owner-key.js';
import { EventBus } from './bus.js';
import { loadConfig, type ServerConfig } from './config.js';
import { createApp } from './http/app.js';
import { Dispatcher, type EmbeddedRoute } from './http/dispatch.js';
import { OPERATIONAL_MODE_KEY } from './http/routes/system.js';
import { RouteTable } from './http/route-table.js';
import { permissionFlags } from './host/permissions.js';
import { ExtensionRegistry } from './host/registry.js';
import { serverServices } from './host/server-services.js';
import type { Kernel } from './kernel.js';
import { createMcpHandler } from './mcp/front.js';
import { McpTokens } from './mcp/tokens.js';
import { Settings } from './settings.js';
import { openKernelDatabase, storageFor } from './storage/provision.js';
import { WsHub } from './ws/hub.js';

export interface RunningServer {
  kernel: Kernel;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Environment variables an extension may read through the `secrets` capability. */
const SECRET_NAMES = new Set(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OLLAMA_HOST', 'GITHUB_TOKEN', 'ROOST_GITHUB_API']);
/** The only environment an extension process inherits; everything else arrives in init or via `secret`. */
const EXTENSION_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'NODE_ENV', 'SYSTEMROOT'];

/** What only a program embedding the kernel can pass (never configuration): see EmbeddedRoute. */
export interface EmbedOptions {
  routes?: EmbeddedRoute[];
}

export async function startServer(overrides: Partial<ServerConfig> = {}, embed: EmbedOptions = {}): Promise<RunningServer> {
  const config = { ...loadConfig(), ...overrides };
  const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const log = (level: string, message: string) => {
    if (level !== 'debug') process.stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
  };
  const { db, schemaVersion } = await openKernelDatabase(config);
  // Everything opened from here on is closed in reverse order, by close() or when start-up fails.
  const closers: Array<() => unknown> = [() => db.destroy()];
  const shutdown = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    await db('tenants').insert({ id: DEFAULT_TENANT, org: 'default', plan: 'enterprise', limits: '{}', created_at: new Date().toISOString() }).onConflict('id').ignore();

    const keys = new KeyStore(db, config.keyTtlDays);
    const routes = new RouteTable();
    const kernel = {
      config, version, startedAt: Date.now(), db, schemaVersion, log, routes, keys,
      bus: new EventBus(),
      audit: new AuditLog(db),
      auth: new Authenticator(keys, config.localAuthRequired),
      rateLimiter: new RateLimiter(config.rateLimitPerMinute),
      settings: new Settings(db),
      mcpTokens: new McpTokens(db),
    } as Kernel;
    closers.push(() => kernel.audit.flush());
    const ws = new WsHub(kernel);
    const unsubscribers = new Map<string, Array<() => void>>();
    // Extensions write only under <data>/extensions (their databases, and TMPDIR for scratch files).
    const extensionsDir = join(config.dataDir, 'extensions');
    await mkdir(join(extensionsDir, 'tmp'), { recursive: true });
    const extensionEnv: Record<string, string | undefined> = {
      ...Object.fromEntries(EXTENSION_ENV.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]])),
      TMPDIR: join(extensionsDir, 'tmp'),
    };
    kernel.registry = new ExtensionRegistry({
      db,
      crashBudget: config.crashBudget,
      crashWindowMs: config.crashWindowMs,
      idleMs: config.extensionIdleSeconds * 1000,
      busy: (name) => ws.hasStreamSubscribers(name),
      storageFor: (name) => storageFor(config, name),
      servicesFor: (name) => serverServices(kernel, ws, name, kernel.registry.get(name).manifest.dir, SECRET_NAMES, extensionEnv),
      // What every extension learns at init; the operational mode then follows the system.operational_mode event.
      initConfig: async () => ({
        serverUrl: `http://127.0.0.1:${server.address() ? (server.address() as AddressInfo).port : config.port}`,
        allowedRoots: config.allowedRoots,
        protectedFiles: config.protectedFiles,
        dataDir: config.dataDir,
        operationalMode: await kernel.settings.get(DEFAULT_TENANT, OPERATIONAL_MODE_KEY, 'normal'),
      }),
      env: extensionEnv,
      nodeFlags: (grants) => permissionFlags(grants, [extensionsDir]),
      log,
      onChange(ext, change) {
        const name = ext.manifest.name;
        for (const off of unsubscribers.get(name) ?? []) off();
        unsubscribers.delete(name);
        if (change === 'unloaded') return routes.removeOwner(name);
        routes.addAll(name, ext.manifest.server?.routes ?? [], front.kernelServes);
        unsubscribers.set(name, (ext.manifest.server?.subscribe ?? []).map((pattern) =>
          kernel.bus.subscribe(pattern, (event) => {
            if (event.source === name || kernel.registry.get(name).state === 'unloaded') return;
            kernel.registry.notify(name, { type: 'event', topic: event.topic, payload: event.payload, tenantId: event.tenantId }).catch(() => undefined);
          }),
        ));
      },
    });
    closers.push(() => kernel.registry.closeAll());
    kernel.dispatcher = new Dispatcher(routes, kernel.registry);
    kernel.ws = ws;
    const front = createApp(kernel);
    if (embed.routes) kernel.dispatcher.embed(embed.routes, front.kernelServes);

    await ensureOwnerKey(kernel);
    const mcp = createMcpHandler(kernel);
    const handler = front.koa.callback();
    const server: Server = createServer((req, res) => {
      if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) return void mcp(req, res);
      void handler(req, res);
    });
    server.keepAliveTimeout = 65_000;
    closers.push(() => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
    closers.push(() => ws.close());
    ws.attach(server);

    await kernel.registry.discover(config.extensionDirs);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    await kernel.registry.startEager();
    const port = (server.address() as AddressInfo).port;
    const tokenSweep = setInterval(() => void kernel.mcpTokens.pruneExpired().catch(() => undefined), 3_600_000).unref();
    closers.push(() => clearInterval(tokenSweep));

    return {
      kernel,
      port,
      url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      close: shutdown,
    };
  } catch (err) {
    await shutdown();
    throw err;
  }
}
