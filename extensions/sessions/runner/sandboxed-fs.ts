// A file tool of a sandboxed session: run by a node worker (sandbox-fs.ts) inside the session's
// sandbox, so the policy's writable folders — not only the runner's own checks — bound what it writes.
import { join } from 'node:path';
import { distDir, packageRoot, runnableEntry } from '../../../lib/paths.js';
import type { SandboxGrant } from '../../../lib/session-sandbox.js';
import { describeSandbox, runSandboxed } from './sandbox-exec.js';
import type { ToolOutcome } from './toolbox.js';
import type { Workspace } from './workspace.js';

/** Node itself needs more than a tight policy gives a command: the worker runs no code of the agent. */
const WORKER_MEMORY_MB = 512;
const WORKER_THREADS = 32;
const WORKER_TIMEOUT_S = 60;
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

// Named by its source: this module may run from the runner's bundle, which is not beside the worker's.
const worker = runnableEntry(join(packageRoot, 'extensions', 'sessions', 'runner', 'sandbox-fs.ts'));

export async function runFsToolSandboxed(grant: SandboxGrant, ws: Workspace, protectedFiles: string[], name: string, input: Record<string, unknown>): Promise<ToolOutcome> {
  const run = await runSandboxed(grant, ws.root, { PATH: '/usr/bin:/bin' }, [process.execPath, '--max-old-space-size=256', worker], {
    timeoutSeconds: WORKER_TIMEOUT_S,
    maxBuffer: MAX_REPLY_BYTES,
    input: JSON.stringify({ name, input, protectedFiles }),
    // The worker's code (and package.json, which makes it an ES module) read-only.
    readOnly: [distDir, join(packageRoot, 'package.json')],
    memoryMb: Math.max(grant.policy.memoryMb, WORKER_MEMORY_MB),
    processes: Math.max(grant.policy.maxProcesses, WORKER_THREADS),
  });
  const footer = describeSandbox(grant);
  try {
    const reply = JSON.parse(run.stdout) as ToolOutcome;
    return { text: reply.isError ? `${reply.text}\n${footer}` : reply.text, isError: reply.isError };
  } catch {
    const why = run.verdict ?? `exit code ${run.exitCode}: ${run.stderr.trim().slice(0, 2000)}`;
    return { text: `${name} failed in the sandbox: ${why}\n${footer}`, isError: true };
  }
}
