// The `exec` capability: run a shell command for a plugin without ever deadlocking on its output.
// Output past the capture limit is drained and dropped (the head is kept); a timeout kills the whole
// process group and answers code 124, as timeout(1) does.
import { resolve } from 'node:path';
import { execa } from 'execa';
import type { ExecResult } from '../../protocol/messages.js';
import type { ExecRequest } from './services.js';

export const EXEC_DEFAULT_TIMEOUT_S = 30;
export const EXEC_MAX_TIMEOUT_S = 300;
export const EXEC_CAPTURE_LIMIT = 8 * 1024 * 1024;

/** Where a command runs for an extension: its exact environment, and the sandbox argv it starts under. */
export type ExecLaunch = (cwd: string) => Promise<{ env: Record<string, string | undefined>; wrapper?: string[] }>;

/** Without `launch` the command runs with the host's own environment (CLI plugins). */
export async function runExec(request: ExecRequest, baseDir: string, launch?: ExecLaunch): Promise<ExecResult> {
  const timeoutS = Math.min(request.timeout ?? EXEC_DEFAULT_TIMEOUT_S, EXEC_MAX_TIMEOUT_S);
  const cwd = resolve(baseDir, request.cwd ?? '.');
  const { env, wrapper } = (await launch?.(cwd)) ?? {};
  const options = { cwd, env, extendEnv: env === undefined, stdin: 'ignore', buffer: false, reject: false, detached: true } as const;
  // In a sandbox the wrapper starts the shell; the timeout's group kill ends the whole sandbox with it.
  const child = wrapper ? execa(wrapper[0]!, [...wrapper.slice(1), '/bin/sh', '-c', request.command], options) : execa(request.command, { ...options, shell: true });
  const stdout = capture(child.stdout!);
  const stderr = capture(child.stderr!);
  let timedOut = false;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2_000).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutS * 1000);
  // Nobody is left to read the answer once the plugin has gone: its command goes too.
  request.signal?.addEventListener('abort', stop, { once: true });
  const result = await child;
  clearTimeout(timer);
  request.signal?.removeEventListener('abort', stop);
  const [out, err] = [stdout.text(), stderr.text()];
  const code = timedOut ? 124 : result.exitCode ?? (result.signal ? 128 : 1);
  const truncated = stdout.truncated() || stderr.truncated();
  return { code, stdout: out, stderr: timedOut ? `${err}roost: command timed out after ${timeoutS} s\n` : err, ...(truncated ? { truncated } : {}) };
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
