// The server's extensions: discovered from folders, started on first use (or with the server when
// eager, or when they asked to be woken), stopped when idle (activation.ts), started again after a
// crash or an environmental fault (supervisor.ts), and loaded, unloaded, granted and revoked live.
import { EventEmitter, once } from 'node:events';
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import { KNOWN_CAPABILITIES } from '../../protocol/messages.js';
import type { StopOptions } from '../../lib/child.js';
import { Activation } from './activation.js';
import { assertLoadable, assertNoDependents, dependentsToUnload, refusedAtStart } from './dependencies.js';
import { assertServerProtocol, readManifest, type Manifest } from './manifest.js';
import { PluginProcess, type HostRequestOptions } from './plugin-process.js';
import type { RegistryDeps } from './registry-deps.js';
import { whenStreamCloses } from './route-streams.js';
import { handlerMismatch, undocumentedRoutes } from './route-names.js';
import { spawnExtension } from './spawn.js';
import { ExtensionSources } from './extension-sources.js';
import type { Extension, ExtensionState } from './extension-record.js';
import { exitFault, startFault, Supervisor } from './supervisor.js';

export type { Extension, ExtensionState } from './extension-record.js';

/** Retry-After of a 503 for an extension that is starting or restarting. */
const RETRY_AFTER_SECONDS = 2;

export class ExtensionRegistry {
  private readonly extensions = new Map<string, Extension>();
  private closing = false;
  /** Emits an extension's name when its start ends or its process exits, for requests waiting on it. */
  private readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly activation: Activation;
  private readonly supervisor: Supervisor;
  private readonly sources: ExtensionSources;

  constructor(private readonly deps: RegistryDeps) {
    this.sources = new ExtensionSources(deps.db);
    this.supervisor = new Supervisor({ ...deps, closing: () => this.closing, restart: (ext) => this.ensureRunning(ext.manifest.name, false) });
    const idleCandidates = () => this.list().filter((e) => e.manifest.server?.activation === 'lazy' && e.state === 'running' && !e.starting && !e.stopping).map((e) => e.manifest.name);
    this.activation = new Activation({ ...deps, idleCandidates, stop: (name) => this.stopIdle(this.get(name)) });
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** Shutdown has begun: from now on nothing starts or restarts an extension. */
  beginClose(): void {
    this.closing = true;
    for (const ext of this.extensions.values()) clearTimeout(ext.restartTimer);
  }

  /** Registers the extensions found in the extension folders (readManifestDirs); one whose requirements are missing or form a cycle is kept unloaded, with why. */
  async discover(found: Manifest[]): Promise<void> {
    const sources = await this.sources.all();
    const unloaded = new Set(sources.filter((s) => !s.loaded).map((s) => s.name));
    const loadedElsewhere = new Set(sources.filter((s) => s.loaded && !found.some((m) => m.name === s.name)).map((s) => s.name));
    const refused = refusedAtStart(found.filter((m) => !unloaded.has(m.name)), loadedElsewhere);
    for (const manifest of found) {
      const why = refused.get(manifest.name);
      if (why) this.deps.log('error', `extension ${manifest.name} not loaded: ${why}`);
      // One bad extension (a route clash, a missing requirement) is skipped; it never keeps the server from starting.
      if (unloaded.has(manifest.name) || why) this.track(manifest, 'unloaded').lastError = why;
      else await this.register(manifest).catch((err) => this.deps.log('warn', `extension ${manifest.name}: ${(err as Error).message}`));
    }
    // Extensions loaded at run time from other folders come back after a restart.
    for (const source of sources.filter((s) => loadedElsewhere.has(s.name))) {
      if (!this.extensions.has(source.name)) await this.load(source.dir).catch((err) => this.deps.log('warn', `extension ${source.name}: ${(err as Error).message}`));
    }
  }

  /**
   * Starts what must run from the start: eager extensions, and lazy ones that asked to be woken
   * (wake_on_start); and, deferredStartMs later, the deferred ones their first use has not started yet.
   */
  async startEager(): Promise<void> {
    const woken = await this.activation.loadWakeFlags();
    const start = (which: (e: Extension) => boolean) =>
      Promise.all(this.list().filter((e) => e.state === 'stopped' && which(e)).map((e) => this.ensureRunning(e.manifest.name, false).catch(() => undefined)));
    this.activation.whenDeferredDue(() => void start((e) => e.manifest.server?.activation === 'deferred'));
    await start((e) => e.manifest.server?.activation === 'eager' || woken.has(e.manifest.name));
  }

  list(): Extension[] {
    return [...this.extensions.values()];
  }

  get(name: string): Extension {
    const ext = this.extensions.get(name);
    if (!ext) throw notFound(`extension ${name}`);
    return ext;
  }

  /** Sends a request to an extension, starting it first when it is lazy or was stopped. */
  async request<T>(name: string, message: { type: string } & Record<string, unknown>, options: HostRequestOptions = {}): Promise<T> {
    // Counted from before the start, so an idle stop never takes the process this request waits for.
    this.activation.begin(name);
    let streaming = false;
    try {
      const reply = await this.requestRunning<T>(name, message, options);
      // A streamed reply keeps the extension in use (never stopped idle) until its body closes.
      streaming = whenStreamCloses(reply, () => this.activation.end(name));
      return reply;
    } finally {
      if (!streaming) this.activation.end(name);
    }
  }

  private async requestRunning<T>(name: string, message: { type: string } & Record<string, unknown>, options: HostRequestOptions): Promise<T> {
    const ext = this.get(name);
    const process = ext.state === 'running' && ext.process ? ext.process : await this.waitAvailable(ext);
    try {
      return await process.request<T>(message, { timeoutMs: ext.manifest.server?.timeoutMs, ...options });
    } catch (err) {
      if (err instanceof RoostError && err.code === 'TIMEOUT') {
        throw new RoostError('EXTENSION_TIMEOUT', `extension ${name} did not answer within ${ext.manifest.server?.timeoutMs} ms`);
      }
      if (err instanceof RoostError && err.code === 'EXTENSION_UNAVAILABLE') {
        throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} stopped while serving this request`, { details: { retryAfter: RETRY_AFTER_SECONDS } });
      }
      throw err;
    }
  }

  /** Counted among the requests waiting for the extension to start while it waits (a queue depth in /metrics). */
  private waitAvailable(ext: Extension): Promise<PluginProcess> {
    ext.startWaiting++;
    return this.available(ext.manifest.name).finally(() => ext.startWaiting--);
  }

  /** Notifies a running extension (events, WebSocket messages); lazy ones are started for it. */
  async notify(name: string, message: { type: string } & Record<string, unknown>): Promise<void> {
    this.activation.touch(name);
    (await this.available(name)).notify(message);
  }

  /** Neither running nor starting: a request would start it. */
  cold(name: string): boolean {
    const ext = this.get(name);
    return ext.state === 'stopped' && !ext.starting;
  }

  /** Starts the extension unless it runs; `onDemand`: a request asked for it and waits for all of the start. */
  async ensureRunning(name: string, onDemand = true): Promise<PluginProcess> {
    const ext = this.get(name);
    if (ext.state === 'running' && ext.process) return ext.process;
    if (ext.starting) return ext.starting;
    if (this.closing) throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} is not running: the server is shutting down`);
    if (ext.state === 'unloaded') throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} is unloaded`);
    if (ext.state === 'failed') throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} failed: ${ext.lastError ?? 'crash budget spent'}`);
    if (ext.state === 'crashed') throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} crashed and is restarting`);
    ext.startOnDemand = onDemand;
    // A start waits for an idle stop under way: never two processes on one database.
    ext.starting = (ext.stopping ?? Promise.resolve())
      .then(() => this.startRequirements(ext, onDemand))
      .then(() => {
        if (ext.state !== 'starting') throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} was stopped while it started`);
        return this.start(ext);
      })
      .then((proc) => (this.activation.touch(name), proc))
      .finally(() => {
        ext.starting = undefined;
        this.changes.emit(name);
      });
    return ext.starting;
  }

  /** What an extension requires is started before it (their starts run side by side). */
  private async startRequirements(ext: Extension, onDemand: boolean): Promise<void> {
    // It is starting from now on, as /api/plugins and readiness say: waiting for its requirements is part of its start.
    ext.state = 'starting';
    await Promise.all((ext.manifest.server?.requires ?? []).map((required) => this.ensureRunning(required, onDemand).catch((err) => {
      const error = new RoostError('EXTENSION_UNAVAILABLE', `extension ${ext.manifest.name} cannot start: it requires ${required}, which cannot start: ${(err as Error).message}`, { details: (err as RoostError).details });
      if (ext.state === 'starting') {
        ext.state = 'stopped';
        ext.lastError = error.message;
      }
      throw error;
    })));
  }

  /**
   * The process that serves a request. A cold extension is started for it and waited for, however long
   * its start takes while it makes progress. One that is starting on its own (eagerly, or again after a
   * crash) is waited for at most waitMs, then the request gets 503 with Retry-After: it never hangs.
   */
  private async available(name: string): Promise<PluginProcess> {
    const ext = this.get(name);
    const deadline = Date.now() + this.deps.waitMs;
    for (;;) {
      if (ext.state === 'running' && ext.process) return ext.process;
      // Waiting out an environmental fault: answered at once, with when the next try comes.
      if (ext.state === 'crashed' && ext.waiting && !this.closing) {
        const retryAfter = Math.max(1, Math.ceil((ext.waiting.retryAt - Date.now()) / 1000));
        throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} cannot serve now: ${ext.waiting.reason}`, { details: { retryAfter } });
      }
      // Cold, or started by another request: wait for all of the start. Failed or unloaded: its error.
      if (this.cold(name) || (ext.starting && ext.startOnDemand) || (ext.state !== 'starting' && ext.state !== 'crashed')) return this.ensureRunning(name);
      const left = deadline - Date.now();
      if (left <= 0 || this.closing) {
        const why = this.closing ? 'the server is shutting down' : ext.state === 'crashed' ? 'it is restarting after a crash' : 'it is still starting';
        throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${name} cannot serve yet: ${why}`, { details: { retryAfter: RETRY_AFTER_SECONDS } });
      }
      await once(this.changes, name, { signal: AbortSignal.timeout(left) }).catch(() => undefined);
    }
  }

  /** Stops an idle lazy extension; its next use starts it again (state `stopped`, as before its first use). */
  private async stopIdle(ext: Extension): Promise<void> {
    ext.stopping = this.stopProcess(ext, 'stopped').finally(() => (ext.stopping = undefined));
    await ext.stopping;
  }

  /** Loads an extension from a folder (or re-loads an unloaded one by name); its data is kept. */
  async load(dirOrName: string): Promise<Extension> {
    const known = this.extensions.get(dirOrName);
    const manifest = known ? await readManifest(known.manifest.dir) : await readManifest(dirOrName);
    if (!manifest.server) throw new RoostError('VALIDATION_ERROR', `${manifest.name} has no [server] table: it is not a server extension`);
    assertServerProtocol(manifest);
    const current = this.extensions.get(manifest.name);
    if (current && current.state !== 'unloaded') throw conflict(`extension ${manifest.name} is already loaded`);
    assertLoadable(manifest, this.extensions);
    // Remembered only once registered: a refused extension (a route clash) leaves no trace behind.
    const ext = await this.register(manifest);
    await this.sources.remember(manifest.name, manifest.dir, true);
    if (this.activation.startsOnLoad(manifest.server.activation)) await this.ensureRunning(manifest.name);
    return ext;
  }

  /**
   * Unloads an extension. One that loaded extensions require is refused (409 naming them) unless
   * `force`, which unloads them first. Answers the names unloaded, in order.
   */
  async unload(name: string, force = false): Promise<string[]> {
    const ext = this.get(name);
    if (ext.state === 'unloaded') throw conflict(`extension ${name} is already unloaded`);
    if (!force) assertNoDependents(name, this.extensions, 'unload');
    const names = [...dependentsToUnload(name, this.extensions), name];
    for (const each of names) {
      const target = this.get(each);
      await this.sources.remember(each, target.manifest.dir, false);
      await this.stopProcess(target, 'unloaded');
      target.queues.clear();
      this.deps.onChange(target, 'unloaded');
    }
    return names;
  }

  /** Revoking what an extension's manifest asks for, while loaded extensions require it, needs `force` (409 naming them). */
  async setGrant(name: string, capability: string, granted: boolean, force = false): Promise<Extension> {
    const ext = this.get(name);
    if (!(KNOWN_CAPABILITIES as readonly string[]).includes(capability)) {
      throw new RoostError('VALIDATION_ERROR', `unknown capability "${capability}"; known: ${KNOWN_CAPABILITIES.join(', ')}`);
    }
    if (!granted && !force && ext.manifest.capabilities[capability]) assertNoDependents(name, this.extensions, `revoke ${capability} from`);
    await this.sources.setGrant(name, capability, granted);
    ext.grants[granted ? 'add' : 'delete'](capability);
    this.deps.onChange(ext, 'grants');
    return ext;
  }

  /** Stops every extension: stdin closed, SIGTERM after closeGraceMs, SIGKILL termGraceMs later. */
  async closeAll(graces: StopOptions = {}): Promise<void> {
    this.beginClose();
    this.activation.close();
    await Promise.all(this.list().map((ext) => this.stopProcess(ext, ext.state === 'unloaded' ? 'unloaded' : 'stopped', graces)));
  }

  private async register(manifest: Manifest): Promise<Extension> {
    const previous = this.extensions.get(manifest.name);
    const stored = await this.sources.grants(manifest);
    const ext = this.track(manifest, 'stopped');
    for (const route of undocumentedRoutes(manifest)) this.deps.log('warn', `extension ${manifest.name}: ${route} has no [server.openapi] entry (the OpenAPI document shows it undescribed)`);
    // On first sight an extension gets what its manifest asks for.
    ext.grants = stored ?? new Set(Object.entries(manifest.capabilities).filter(([, wanted]) => wanted).map(([capability]) => capability));
    try {
      this.deps.onChange(ext, 'registered');
    } catch (err) {
      if (previous) this.extensions.set(manifest.name, previous);
      else this.extensions.delete(manifest.name);
      throw err;
    }
    if (!stored) await this.sources.grantFirst(manifest.name, ext.grants);
    return ext;
  }

  private track(manifest: Manifest, state: ExtensionState): Extension {
    const previous = this.extensions.get(manifest.name);
    const ext: Extension = { manifest, state, grants: previous?.grants ?? new Set(), schemaVersion: previous?.schemaVersion ?? null, crashes: [], restarts: 0, startWaiting: 0, queues: new Map() };
    this.extensions.set(manifest.name, ext);
    return ext;
  }

  private async start(ext: Extension): Promise<PluginProcess> {
    const { manifest } = ext;
    const server = manifest.server!;
    ext.state = 'starting';
    // Before the spawn (its database role, relay, config, its sandbox): a failure is tried again like a
    // stopped process, except a refusal over its disk budget (507), which waits for the next request.
    const { storage, config, launch } = await (async () => ({
      storage: ext.grants.has('db') ? await this.deps.storageFor(manifest.name) : undefined,
      config: await this.deps.initConfig(manifest.name),
      launch: await this.deps.launch(manifest, ext.grants),
    }))().catch((err) => {
      if (ext.state !== 'starting' || this.closing) throw err;
      if (err instanceof RoostError && err.status === 507) {
        ext.state = 'stopped';
        ext.lastError = err.message;
        throw err;
      }
      const fault = startFault(err);
      this.supervisor.failed(ext, fault);
      throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} cannot start: ${fault.reason}`, { details: { retryAfter: RETRY_AFTER_SECONDS }, cause: err });
    });
    // Stopped, or the server began to shut down, while storage and config were prepared: spawn nothing.
    if (ext.state !== 'starting' || this.closing) throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} was stopped while it started`);
    const { proc, outcome } = await spawnExtension({
      manifest,
      grants: ext.grants,
      services: this.activation.watch(manifest.name, this.deps.servicesFor(manifest.name)),
      storage,
      config,
      launch,
      stallMs: server.startTimeoutMs ?? this.deps.startStallMs,
      capMs: this.deps.startCapMs,
      onStderr: (line) => {
        ext.lastLine = line;
        this.deps.stderrLine(manifest.name, line);
      },
      onSpawn: (spawned) => (ext.process = spawned),
      onExit: (spawned, exit) => this.onExit(ext, spawned, exit),
    });
    if (!outcome.ok) {
      if (proc.child.running) await proc.stop();
      if (ext.waiting) throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} cannot start: ${ext.waiting.reason}`, { details: { retryAfter: RETRY_AFTER_SECONDS } });
      // The shutdown stopped it (its stdin closed): no failure to warn of.
      if (this.closing) throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} is not running: the server is shutting down`);
      // Set after the stop, whose exit handler records a less telling "exited unexpectedly".
      ext.lastError = outcome.why;
      this.deps.log('warn', `extension ${manifest.name} ${outcome.why}`);
      throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} ${outcome.why}`);
    }
    const mismatch = handlerMismatch(manifest, outcome.routes);
    if (mismatch) await this.refuseStart(ext, mismatch);
    ext.schemaVersion = outcome.version;
    // Stopped or unloaded while it started: it must not come back as running.
    if (ext.state !== 'starting') throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${manifest.name} was stopped while it started`);
    ext.state = 'running';
    ext.startedAt = new Date().toISOString();
    this.supervisor.started(ext);
    return proc;
  }

  /** A fault in the extension's code that no restart heals: `failed` at once, with the reason. */
  private async refuseStart(ext: Extension, why: string): Promise<never> {
    await this.stopProcess(ext, 'stopped'); // stopped first: its exit is no crash to restart
    ext.state = 'failed';
    ext.lastError = why;
    this.changes.emit(ext.manifest.name);
    this.deps.log('warn', `extension ${ext.manifest.name} failed: ${why}`);
    throw new RoostError('EXTENSION_UNAVAILABLE', `extension ${ext.manifest.name} failed: ${why}`);
  }

  private onExit(ext: Extension, proc: PluginProcess, exit: { code: number | null; signal: string | null }): void {
    if (ext.process !== proc) return;
    ext.process = undefined;
    this.changes.emit(ext.manifest.name);
    // During shutdown an exit is expected, and a crash is never restarted.
    if (ext.state === 'stopped' || ext.state === 'unloaded' || this.closing) return;
    // Stopped by its guard (its process limit or disk budget): a fault of its own, as a crash is.
    const limit = proc.stoppedFor(exit);
    this.supervisor.failed(ext, limit ? { environmental: false, reason: limit } : exitFault(exit, ext.lastLine));
  }

  private async stopProcess(ext: Extension, state: 'stopped' | 'unloaded', graces: StopOptions = {}): Promise<void> {
    if (ext.restartTimer) clearTimeout(ext.restartTimer);
    ext.state = state;
    ext.waiting = undefined;
    const proc = ext.process;
    if (proc) await proc.child.stop(graces);
  }
}
