// Runs one task for `roost run`: output streams straight through (inherited), or under --json to our
// stderr so stdout stays one JSON document. node:child_process is used here rather than execa because
// importing execa alone costs more than the whole 100 ms overhead budget of `roost run` (docs/cli.md).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { RoostError } from '../../protocol/errors.js';
import { installHint } from './install-hints.js';
import { OutputTail } from './tail.js';

export interface TaskRun {
  exitCode: number;
  durationMs: number;
  /** The last lines of output; only when captured (--json). */
  outputTail?: string;
}

export function runTask(argv: string[], options: { cwd: string; capture: boolean }): Promise<TaskRun> {
  const started = performance.now();
  const tail = options.capture ? new OutputTail() : undefined;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    stdio: options.capture ? ['inherit', 'pipe', 'pipe'] : 'inherit',
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      tail!.push(chunk);
      process.stderr.write(chunk);
    });
  }
  // The terminal delivers Ctrl-C to the task too; roost stays alive to report the task's own exit.
  const ignore = () => {};
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', ignore);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  const restore = () => {
    process.off('SIGINT', ignore);
    process.off('SIGTERM', forward);
    process.off('SIGHUP', forward);
  };
  return new Promise<TaskRun>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      restore();
      reject(spawnError(argv[0]!, err));
    });
    child.once('close', (code, signal) => {
      restore();
      const exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
      resolve({ exitCode, durationMs: Math.round(performance.now() - started), outputTail: tail?.value() });
    });
  });
}

export function spawnError(command: string, err: NodeJS.ErrnoException): RoostError {
  if (err.code === 'ENOENT') return new RoostError('COMMAND_NOT_FOUND', `${command}: command not found (is it installed and on PATH?)${installHint(command)}`);
  if (err.code === 'EACCES') return new RoostError('COMMAND_NOT_FOUND', `${command}: permission denied (is it executable?)`);
  return new RoostError('INTERNAL', `${command}: ${err.message}`);
}
