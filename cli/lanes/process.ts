// Runs one lane step's process: its own process group (detached), output streamed to a sink and kept
// as a tail, an optional timeout that kills the whole group. The step ends when its main process exits;
// background children it left behind may keep the pipes open, so we stop waiting for them shortly after
// (they are ended with the lane, see ProcessGroups.killAll).
import { constants } from 'node:os';
import { execa } from 'execa';
import { OutputTail } from '../tasks/tail.js';
import type { ProcessGroups } from './groups.js';
import type { Sink } from './sink.js';

const DRAIN_MS = 250;

export interface ProcessOutcome {
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
  outputTail: string;
}

export interface ProcessOptions {
  cwd: string;
  env: Record<string, string>;
  /** Seconds. */
  timeout?: number;
  sink: Sink;
  groups: ProcessGroups;
}

/** argv runs as is; a string runs with sh -c. */
export async function runStepProcess(command: string[] | string, options: ProcessOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const [file, args] = typeof command === 'string' ? ['sh', ['-c', command]] : [command[0]!, command.slice(1)];
  const tail = new OutputTail();
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdin: 'ignore',
    buffer: false,
    reject: false,
  });
  const { pid } = subprocess;
  if (pid !== undefined) options.groups.add(pid);
  subprocess.stdout?.on('data', (chunk: Buffer) => {
    tail.push(chunk);
    options.sink.out(chunk);
  });
  subprocess.stderr?.on('data', (chunk: Buffer) => {
    tail.push(chunk);
    options.sink.err(chunk);
  });

  let timedOut = false;
  const timer = options.timeout !== undefined && pid !== undefined
    ? setTimeout(() => {
        timedOut = true;
        void options.groups.kill(pid);
      }, options.timeout * 1000)
    : undefined;

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    subprocess.once('exit', (code, signal) => resolve({ code, signal })));
  const finished = subprocess.then((result) => result);
  const first = await Promise.race([finished.then((result) => ({ result })), exited.then((exit) => ({ exit }))]);
  clearTimeout(timer);

  let exitCode: number;
  if ('result' in first && first.result.failed && first.result.exitCode === undefined && first.result.signal === undefined) {
    // The process never started (not found, not executable).
    const message = `roost: ${file}: ${first.result.code === 'ENOENT' ? 'command not found' : first.result.shortMessage}\n`;
    tail.push(message);
    options.sink.err(message);
    exitCode = 127;
  } else {
    const exit = 'exit' in first ? first.exit : { code: first.result.exitCode ?? null, signal: first.result.signal ?? null };
    exitCode = exit.code ?? 128 + (exit.signal ? constants.signals[exit.signal] : 0);
    await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
  }
  options.sink.flush();
  return { exitCode, timedOut, durationMs: Math.round(performance.now() - started), outputTail: tail.value() };
}
