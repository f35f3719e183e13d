// A plugin or extension child process with a Peer on its stdin/stdout and its stderr as a log.
// Shutdown is orderly: close stdin, then SIGTERM, then SIGKILL, each after a grace period. Built on
// node:child_process alone: loading execa would cost every CLI plugin command ~80 ms before it starts.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { RoostError } from '../protocol/errors.js';
import { Peer, type PeerOptions } from '../protocol/peer.js';

/** At most how often events cost a child a write of their own, and so the longest one waits under load (PeerOptions.deferMs). */
const EVENT_DEFER_MS = 50;

/** A child never outlives its host: those still running get SIGTERM when the host process exits. */
const liveChildren = new Set<ChildProcessWithoutNullStreams>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGTERM');
});

export interface SpawnOptions extends PeerOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Extra node flags when the entry is a JavaScript file (e.g. permission-model flags). */
  nodeFlags?: string[];
  /** A command the child runs inside (a sandbox): its argv, to which the child's own command line is appended. */
  wrapper?: string[];
  /**
   * Where SIGTERM goes when a wrapper is used: the wrapped command's own pid, found from the wrapper's
   * (a sandbox's outer process dies of SIGTERM and takes its contents with it, unwarned).
   */
  politeSignalTarget?: (wrapperPid: number) => number | undefined;
  /** Each line the child writes to stderr. */
  onStderr?: (line: string) => void;
}

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export interface StopOptions {
  /** How long the child may take to leave after its stdin closes. */
  closeGraceMs?: number;
  /** How long after SIGTERM before SIGKILL. */
  termGraceMs?: number;
}

export class PluginChild {
  readonly peer: Peer;
  readonly exited: Promise<ChildExit>;
  private readonly process: ChildProcessWithoutNullStreams;
  private exitInfo: ChildExit | undefined;
  private readonly politeSignalTarget: SpawnOptions['politeSignalTarget'];

  constructor(entry: string, args: string[], options: SpawnOptions) {
    const isScript = /\.(c|m)?js$/.test(entry);
    const command = isScript ? [process.execPath, ...(options.nodeFlags ?? []), entry, ...args] : [entry, ...args];
    const [file, ...argv] = [...(options.wrapper ?? []), ...command];
    // Without env the child inherits the host's environment; with it, it gets exactly that.
    this.process = spawn(file!, argv, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    this.politeSignalTarget = options.wrapper ? options.politeSignalTarget : undefined;
    const stdin = this.process.stdin;
    stdin.on('error', () => undefined); // EPIPE when the child is gone: the exit handler reports it
    // The host ends stdin itself (stop), which flushes, so its frames may be gathered per event-loop turn,
    // and events for a few milliseconds.
    this.peer = new Peer(stdin, { ...options, coalesceWrites: true, deferMs: EVENT_DEFER_MS }).attach(this.process.stdout);
    forwardLines(this.process.stderr, options.onStderr);
    liveChildren.add(this.process);
    this.exited = new Promise<ChildExit>((resolve) => {
      // 'close' comes after stdout has ended, so every message the child wrote has been read.
      this.process.once('close', (code, signal) => resolve({ code, signal }));
      this.process.once('error', () => resolve({ code: null, signal: null })); // could not be started
    }).then((exit) => {
      liveChildren.delete(this.process);
      return this.recordExit(exit.code, exit.signal);
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** close stdin → SIGTERM → SIGKILL; resolves when the process is gone. */
  async stop(options: StopOptions = {}): Promise<ChildExit> {
    if (this.exitInfo) return this.exitInfo;
    this.process.stdin?.end();
    if (await this.waitExit(options.closeGraceMs ?? 2_000)) return this.exitInfo!;
    this.signal('SIGTERM');
    if (await this.waitExit(options.termGraceMs ?? 5_000)) return this.exitInfo!;
    this.signal('SIGKILL');
    return this.exited;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exitInfo) return;
    const target = signal === 'SIGTERM' && this.process.pid !== undefined ? this.politeSignalTarget?.(this.process.pid) : undefined;
    try {
      if (target !== undefined) process.kill(target, signal);
      else this.process.kill(signal);
    } catch {
      // already gone
    }
  }

  private waitExit(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private recordExit(code: number | null, signal: string | null): ChildExit {
    this.exitInfo = { code, signal };
    this.peer.close(new RoostError('EXTENSION_UNAVAILABLE', `process exited (${signal ?? `code ${code}`})`));
    return this.exitInfo;
  }
}

function forwardLines(stream: NodeJS.ReadableStream, onLine: ((line: string) => void) | undefined): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (!onLine) return;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > 64 * 1024) pending = pending.slice(0, 64 * 1024); // a line without end stays bounded
    for (const line of lines) if (line !== '') onLine(line);
  });
  stream.on('end', () => {
    if (onLine && pending !== '') onLine(pending);
  });
}
