// The extension host as the server wires it: the launcher (sandbox, cgroups, disk), the per-extension
// log limit, and the registry with what it needs from the rest of the kernel — storage, host services,
// what every extension learns at init, and, as each is registered or unloaded, its routes in the route
// table and its bus subscriptions.
import { DEFAULT_TENANT } from '../auth/keys.js';
import { extensionKey } from '../auth/sealing-key.js';
import { OPERATIONAL_MODE_KEY, type Kernel } from '../kernel.js';
import { stderrLevel } from '../../lib/stderr-level.js';
import type { ResponseCache } from '../http/response-cache.js';
import type { PgRelays } from '../storage/pg-relay.js';
import { storageFor, tenantWorkspaces } from '../storage/provision.js';
import type { WsHub } from '../ws/hub.js';
import { passes } from './event-filter.js';
import { extensionSettings } from './extension-settings.js';
import { ExtensionLauncher } from './launcher.js';
import { ExtensionLogs } from './log-limit.js';
import { ExtensionRegistry } from './registry.js';
import { serverServices } from './server-services.js';

/** The only environment an extension process inherits; everything else arrives in init or via `secret`. */
// ROOST_CLOCK: `test` gives extensions that keep time (schedules, workflows) a clock tests move by hand.
const EXTENSION_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'NODE_ENV', 'SYSTEMROOT', 'ROOST_CLOCK'];

export interface HostingDeps {
  kernel: Kernel;
  ws: WsHub;
  sealingKey: Buffer;
  relays: PgRelays | undefined;
  /** Answers kept for routes declared cached: what an extension answered is forgotten when it starts or changes, and on the events it names. */
  cache: ResponseCache;
  /** The port the server listens on, for the serverUrl extensions reach it by. */
  port(): number;
  /** Whether the kernel itself serves a method and path (no extension may declare it). */
  kernelServes(method: string, path: string): boolean;
  /** Registers what to close on shutdown (run last first). */
  onClose(close: () => unknown): void;
}

export interface Hosting {
  registry: ExtensionRegistry;
  launcher: ExtensionLauncher;
  logs: ExtensionLogs;
}

export function hostExtensions({ kernel, ws, sealingKey, relays, cache, port, kernelServes, onClose }: HostingDeps): Hosting {
  const { config, db, log, routes, bus } = kernel;
  const unsubscribers = new Map<string, Array<() => void>>();
  // Each extension runs sandboxed with this environment (HOME and TMPDIR in its own data folder added).
  const extensionEnv = Object.fromEntries(EXTENSION_ENV.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
  const launcher = new ExtensionLauncher(config, extensionEnv, log);
  // Closed after the extensions have stopped (closers run last first): their cgroups are empty by then.
  onClose(() => launcher.close());
  const logs = new ExtensionLogs(config.extensionLogLimit, log);
  onClose(() => logs.close());
  const registry: ExtensionRegistry = new ExtensionRegistry({
    db,
    crashBudget: config.crashBudget,
    crashWindowMs: config.crashWindowMs,
    startStallMs: config.extensionStartStallMs,
    startCapMs: config.extensionStartCapMs,
    waitMs: config.extensionWaitMs,
    idleMs: config.extensionIdleSeconds * 1000,
    deferredStartMs: config.extensionDeferredStartSeconds * 1000,
    busy: (name) => ws.hasStreamSubscribers(name),
    storageFor: (name) => storageFor(config, db, name, relays),
    servicesFor: (name) => {
      const ext = registry.get(name);
      const services = serverServices(kernel, ws, name, ext.manifest.dir, { names: new Set(ext.manifest.server?.secrets), extensionKey: extensionKey(sealingKey, ext.manifest.renamedFrom?.[0] ?? name) }, (cwd) => launcher.execLaunch(ext.manifest, ext.grants, cwd));
      // What it logs counts against its log rate limit.
      return { ...services, output: (text) => logs.write(name, 'info', `[${name}] ${text}`), log: (level, message, fields) => logs.write(name, level, message, fields) };
    },
    // What every extension learns at init; the operational mode then follows the system.operational_mode event.
    initConfig: async (name) => ({
      // An extension's own settings: ROOST_EXT_<NAME>_… and its manifest's [settings] (see docs/configuration.md).
      settings: extensionSettings(registry.get(name).manifest, process.env),
      serverUrl: `http://127.0.0.1:${port()}`,
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
    launch: (manifest, grants) => {
      cache.forgetOwner(manifest.name); // a new process may have migrated what it answers
      return launcher.launch(manifest, grants);
    },
    log,
    stderrLine: (name, line) => logs.write(name, stderrLevel(line), `[${name}] ${line}`),
    onChange(ext, change) {
      const name = ext.manifest.name;
      cache.forgetOwner(name);
      if (change === 'grants') return;
      for (const off of unsubscribers.get(name) ?? []) off();
      unsubscribers.delete(name);
      if (change === 'unloaded') {
        void kernel.leadership.resignOwner(name);
        return routes.removeOwner(name);
      }
      launcher.check(ext.manifest); // an extension that could only run unsandboxed is refused here, before it is routed
      routes.addAll(name, ext.manifest.server?.routes ?? [], kernelServes);
      // `subscribe`: once per deployment, by the instance that published; `broadcast`: on every instance.
      const patterns = [...(ext.manifest.server?.subscribe ?? []).map((p) => [p, false] as const), ...(ext.manifest.server?.broadcast ?? []).map((p) => [p, true] as const)];
      unsubscribers.set(name, patterns.map(([pattern, everywhere]) =>
        bus.subscribe(pattern, (event) => {
          if ((event.source === name && !event.remote) || (event.remote && !everywhere) || registry.get(name).state === 'unloaded') return;
          if (!everywhere && !passes(ext.manifest.server?.subscribeWhen[pattern], event.payload)) return;
          // A broadcast carries state a running copy holds; a stopped one reads it when it starts, so is not woken.
          if (everywhere && registry.cold(name)) return;
          registry.notify(name, { type: 'event', topic: event.topic, payload: event.payload, tenantId: event.tenantId }).catch(() => undefined);
        }),
      ));
      for (const pattern of ext.manifest.server?.cache?.invalidatedBy ?? []) unsubscribers.get(name)!.push(bus.subscribe(pattern, (event) => cache.forget(name, event.tenantId)));
    },
  });
  return { registry, launcher, logs };
}
