// One extension process spawned and watched through its start: it is up when it says ready (with its
// schema version and the routes it handles); it failed when it exits first or its start stalls.
import type { StorageInfo } from '../../protocol/messages.js';
import type { Launch } from './launcher.js';
import type { Manifest } from './manifest.js';
import { PluginProcess } from './plugin-process.js';
import type { HostServices } from './services.js';
import { StartWatch } from './start-progress.js';

const HOST_INFO = { name: 'roost-server', version: '0.1.0' };

export interface SpawnOptions {
  manifest: Manifest;
  grants: Set<string>;
  services: HostServices;
  storage: StorageInfo | undefined;
  config: Record<string, unknown>;
  launch: Launch;
  /** A start fails after this long without progress (a line on stderr), and after capMs whatever its progress. */
  stallMs: number;
  capMs: number;
  onStderr(line: string): void;
  /** The process exists (before its start has ended). */
  onSpawn(proc: PluginProcess): void;
  onExit(proc: PluginProcess, exit: { code: number | null; signal: string | null }): void;
}

export type StartOutcome = { ok: true; version: number; routes?: string[] } | { ok: false; why: string };

export async function spawnExtension(options: SpawnOptions): Promise<{ proc: PluginProcess; outcome: StartOutcome }> {
  const { manifest } = options;
  let markReady!: (ready: { schemaVersion: number; routes?: string[] }) => void;
  const ready = new Promise<{ schemaVersion: number; routes?: string[] }>((resolve) => (markReady = resolve));
  let watch: StartWatch | undefined;
  let lastLine: string | undefined;
  const proc: PluginProcess = new PluginProcess({
    manifest,
    entry: manifest.server!.main,
    grants: options.grants,
    services: options.services,
    init: { args: [], project: null, host: HOST_INFO, storage: options.storage, config: options.config },
    ...options.launch,
    requestTimeoutMs: manifest.server!.timeoutMs,
    onStderr: (line) => {
      watch?.progress();
      lastLine = line;
      options.onStderr(line);
    },
    onReady: markReady,
    onExit: (exit) => options.onExit(proc, exit),
  });
  options.onSpawn(proc);
  watch = new StartWatch({ pid: proc.pid, stallMs: options.stallMs, capMs: options.capMs });
  const outcome = await Promise.race<StartOutcome>([
    ready.then((v) => ({ ok: true as const, version: v.schemaVersion, routes: v.routes })),
    proc.child.exited.then((exit) => ({ ok: false as const, why: proc.stoppedFor(exit) ?? exitedDuringStart(exit, lastLine) })),
    watch.expired().then((why) => ({ ok: false as const, why })),
  ]);
  watch.stop();
  return { proc, outcome };
}

/** The longest reason taken from an extension's stderr into an error message. */
const REASON_CHARS = 300;

/**
 * An exit before "ready": its code or signal and, for an exit with a code, the last line the process wrote
 * to stderr, which by the protocol says why it left (docs/protocol.md, "Start-up"): a setting it refused,
 * a migration that failed. A signal comes from outside, so whatever it last wrote is no reason.
 */
function exitedDuringStart(exit: { code: number | null; signal: string | null }, lastLine: string | undefined): string {
  if (exit.signal) return `exited during start-up (${exit.signal})`;
  const said = lastLine?.trim();
  if (!said) return `exited during start-up (code ${exit.code})`;
  return `exited during start-up (code ${exit.code}): ${said.length > REASON_CHARS ? `${said.slice(0, REASON_CHARS - 1)}…` : said}`;
}
