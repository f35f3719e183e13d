// A plain plugin (a manifest without `protocol`, as fledge runs them): its arguments in argv, no
// messages. A command gets roost's terminal as it is; a hook or lane step has its output captured.
// RunningPlugin is also what cli/plugins/run.ts makes of a protocol plugin, so both stop the same way.
import { spawn } from 'node:child_process';
import type { CancelCause } from '../../kernel/host/dialects/dialect.js';
import { sandboxedPid } from '../../kernel/host/sandbox.js';
import type { ChildExit } from '../../lib/child.js';

export interface RunningPlugin {
  exited: Promise<ChildExit>;
  /** Asks it to stop (cli-v1: `cancel`; plain: SIGINT); SIGTERM 5 s later and SIGKILL 5 s after that. */
  cancel(reason: string, cause: CancelCause): void;
  kill(): void;
}

export interface PlainOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** The sandbox's argv prefix (cli/plugins/sandbox.ts), when it runs in one. */
  wrapper?: string[];
  /** stdio passed through (a command run from the terminal); otherwise each line goes to `onLine`. */
  passThrough: boolean;
  onLine(line: string): void;
}

const GRACE_MS = 5_000;

export function startPlain(file: string, args: string[], options: PlainOptions): RunningPlugin {
  const own = /\.(c|m)?js$/.test(file) ? [process.execPath, file, ...args] : [file, ...args];
  const [command, ...argv] = [...(options.wrapper ?? []), ...own];
  const child = spawn(command!, argv, {
    cwd: options.cwd,
    env: options.env,
    stdio: options.passThrough ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  if (!options.passThrough) for (const stream of [child.stdout!, child.stderr!]) forwardLines(stream, options.onLine);
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null })); // could not be started
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const timers: NodeJS.Timeout[] = [];
  void exited.then(() => timers.forEach(clearTimeout));
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // In a sandbox a polite signal goes to the plugin itself: the sandbox's outer process would die of it.
    const inner = name !== 'SIGKILL' && options.wrapper && child.pid !== undefined ? sandboxedPid(child.pid) : undefined;
    try {
      if (inner !== undefined) process.kill(inner, name);
      else child.kill(name);
    } catch {
      // already gone
    }
  };
  return {
    exited,
    // As a terminal's Ctrl-C would (a sandboxed plugin has a session of its own and gets none).
    cancel: () => {
      signal('SIGINT');
      timers.push(setTimeout(() => signal('SIGTERM'), GRACE_MS), setTimeout(() => signal('SIGKILL'), 2 * GRACE_MS));
    },
    kill: () => signal('SIGKILL'),
  };
}

function forwardLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
  });
}
