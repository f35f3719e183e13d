// The `exec` capability: run a shell command for a plugin without ever deadlocking on its output.
// Captured (the default): output past the capture limit is drained and dropped (the head is kept) and
// comes back in the result. Streamed (`stream: true`): each chunk goes to `onOutput` as it comes and the
// result carries the exit code alone, so a command may run long and print without bound. A timeout
// kills the whole process group and answers code 124, as timeout(1) does.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { ExecResult } from '../../protocol/messages.js';
import type { ExecRequest } from './services.js';

export const EXEC_DEFAULT_TIMEOUT_S = 30;
export const EXEC_MAX_TIMEOUT_S = 300;
/** A streamed command (a deploy, a long build) may run for hours; by default one hour. */
export const EXEC_STREAM_DEFAULT_TIMEOUT_S = 3_600;
export const EXEC_STREAM_MAX_TIMEOUT_S = 86_400;
export const EXEC_CAPTURE_LIMIT = 8 * 1024 * 1024;
/** SIGTERM first; SIGKILL this long after if the group is still there. */
const KILL_GRACE_MS = 2_000;

/** Where a command runs for an extension: its exact environment, and the sandbox argv it starts under. */
export type ExecLaunch = (cwd: string) => Promise<{ env: Record<string, string | undefined>; wrapper?: string[] }>;

/** Without `launch` the command runs with the host's own environment (CLI plugins). */
export async function runExec(request: ExecRequest, baseDir: string, launch?: ExecLaunch): Promise<ExecResult> {
  const timeoutS = request.onOutput
    ? Math.min(request.timeout ?? EXEC_STREAM_DEFAULT_TIMEOUT_S, EXEC_STREAM_MAX_TIMEOUT_S)
    : Math.min(request.timeout ?? EXEC_DEFAULT_TIMEOUT_S, EXEC_MAX_TIMEOUT_S);
  const cwd = resolve(baseDir, request.cwd ?? '.');
  const { env, wrapper } = (await launch?.(cwd)) ?? {};
  // In a sandbox the wrapper starts the shell; the timeout's group kill ends the whole sandbox with it.
  const [file, ...args] = wrapper ? [...wrapper, '/bin/sh', '-c', request.command] : ['/bin/sh', '-c', request.command];
  const child = spawn(file!, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const onOutput = request.onOutput;
  if (onOutput) {
    forward(child.stdout, 'stdout', onOutput);
    forward(child.stderr, 'stderr', onOutput);
  }
  const [stdout, stderr] = onOutput ? [undefined, undefined] : [capture(child.stdout), capture(child.stderr)];
  let timedOut = false;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutS * 1000);
  // Nobody is left to read the answer once the plugin has gone: its command goes too.
  request.signal?.addEventListener('abort', stop, { once: true });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((done) => {
    child.once('error', (error) => done({ code: null, signal: null, error }));
    child.once('close', (code, signal) => done({ code, signal }));
  });
  clearTimeout(timer);
  request.signal?.removeEventListener('abort', stop);
  const code = timedOut ? 124 : exit.error ? 127 : exit.code ?? (exit.signal ? 128 : 1);
  const notes = [
    ...(exit.error ? [`roost: could not start the command: ${exit.error.message}\n`] : []),
    ...(timedOut ? [`roost: command timed out after ${timeoutS} s\n`] : []),
  ].join('');
  if (!stdout || !stderr) {
    if (notes) onOutput?.('stderr', notes);
    return { code, stdout: '', stderr: '', streamed: true };
  }
  const truncated = stdout.truncated() || stderr.truncated();
  return { code, stdout: stdout.text(), stderr: `${stderr.text()}${notes}`, ...(truncated ? { truncated } : {}) };
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

function capture(stream: NodeJS.ReadableStream) {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = false;
  stream.on('data', (chunk: Buffer) => {
    if (size >= EXEC_CAPTURE_LIMIT) {
      dropped = true;
      return;
    }
    const room = EXEC_CAPTURE_LIMIT - size;
    if (chunk.length > room) dropped = true;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(kept);
    size += kept.length;
  });
  return { text: () => Buffer.concat(chunks).toString('utf8'), truncated: () => dropped };
}

/** Each chunk as text the moment it comes; a character split between two chunks is held for the next. */
function forward(stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr', onOutput: NonNullable<ExecRequest['onOutput']>): void {
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text) onOutput(name, text);
  });
  stream.on('end', () => {
    const rest = decoder.end();
    if (rest) onOutput(name, rest);
  });
}
