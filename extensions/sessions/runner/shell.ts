// run_command: a shell command in the working directory with a timeout, its own process group (so a
// timeout or a stop kills everything it started), bounded output, and the protected-file guard; in
// the session's sandbox when it has one (sandbox-exec.ts).
import type { ResultPromise } from 'execa';
import type { ToolSpec } from '../../../lib/providers/index.js';
import type { SandboxGrant } from '../../../lib/session-sandbox.js';
import { restoreProtected, snapshotProtected } from './guard.js';
import { describeSandbox, killGroup, runSandboxed } from './sandbox-exec.js';
import { toolSchema } from './tool-schemas.js';
import { toolError, type Workspace } from './workspace.js';

const INPUT_SCHEMA = toolSchema('run_command') as { properties: { timeout_seconds: { maximum: number } } };
export const DEFAULT_COMMAND_TIMEOUT_S = 30;
export const MAX_COMMAND_TIMEOUT_S = INPUT_SCHEMA.properties.timeout_seconds.maximum;
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Past this a command is stopped: it floods. */
const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;
/** The only variables a command inherits from the runner; the project's env_vars come on top. */
const BASE_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

export const SHELL_TOOL_SPEC: ToolSpec = {
  name: 'run_command',
  description: `Run a shell command in the working directory. Default timeout ${DEFAULT_COMMAND_TIMEOUT_S} s, at most ${MAX_COMMAND_TIMEOUT_S} s. Returns the exit code and output.`,
  inputSchema: INPUT_SCHEMA,
};

interface CommandOutcome {
  head: string;
  stdout: string;
  stderr: string;
  failed: boolean;
}

export class Shell {
  private readonly running = new Set<ResultPromise>();
  private readonly sandboxed = new Set<() => void>();

  constructor(private readonly ws: Workspace, private readonly env: Record<string, string>) {}

  /** `sandbox`: the session's sandbox, when it has one; the command then runs inside it. */
  async run(command: string, timeoutSeconds = DEFAULT_COMMAND_TIMEOUT_S, sandbox: SandboxGrant | null = null): Promise<{ text: string; isError: boolean }> {
    if (typeof command !== 'string' || command.trim() === '') throw toolError('command must be a non-empty string');
    const before = await snapshotProtected(this.ws);
    const outcome = sandbox ? await this.inSandbox(command, timeoutSeconds, sandbox) : await this.direct(command, timeoutSeconds);
    const repaired = await restoreProtected(this.ws, before);
    const parts = [outcome.head];
    if (outcome.stdout) parts.push(`stdout:\n${clip(outcome.stdout)}`);
    if (outcome.stderr) parts.push(`stderr:\n${clip(outcome.stderr)}`);
    if (repaired.length > 0) parts.push(`protected files were changed and have been restored: ${repaired.join(', ')}`);
    if (sandbox) parts.push(describeSandbox(sandbox));
    return { text: parts.join('\n'), isError: outcome.failed || repaired.length > 0 };
  }

  private async direct(command: string, timeoutSeconds: number): Promise<CommandOutcome> {
    const { execa } = await import('execa'); // loaded with the first command, not with every runner
    const child = execa(command, {
      shell: true,
      cwd: this.ws.root,
      env: this.commandEnv(),
      extendEnv: false,
      stdin: 'ignore',
      detached: true,
      reject: false,
      maxBuffer: MAX_CAPTURE_BYTES,
    });
    this.running.add(child);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutSeconds * 1000);
    const result = await child.finally(() => {
      clearTimeout(timer);
      this.running.delete(child);
    });
    const head = timedOut ? `timed out after ${timeoutSeconds} s (killed)` : `exit code ${result.exitCode ?? `signal ${result.signal}`}`;
    return { head, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? ''), failed: timedOut || result.exitCode !== 0 };
  }

  private async inSandbox(command: string, timeoutSeconds: number, sandbox: SandboxGrant): Promise<CommandOutcome> {
    const run = await runSandboxed(sandbox, this.ws.root, this.commandEnv(), ['/bin/sh', '-c', command], {
      timeoutSeconds,
      maxBuffer: MAX_CAPTURE_BYTES,
      track: (kill) => {
        this.sandboxed.add(kill);
        return () => this.sandboxed.delete(kill);
      },
    });
    const head = run.verdict ? `stopped by the sandbox: ${run.verdict} (exit code ${run.exitCode ?? 'none'})` : `exit code ${run.exitCode}`;
    return { head, stdout: run.stdout, stderr: run.stderr, failed: run.verdict !== null || run.exitCode !== 0 };
  }

  private commandEnv(): Record<string, string> {
    return { ...pick(process.env, BASE_ENV), ...this.env };
  }

  /** Kills every command still running (the runner is leaving). */
  killAll(): void {
    for (const child of this.running) killGroup(child.pid);
    for (const kill of this.sandboxed) kill();
  }
}

/** Long output keeps its head and its tail (where test runners put their verdict). */
function clip(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const head = MAX_OUTPUT_CHARS / 4;
  return `${text.slice(0, head)}\n… (${text.length - MAX_OUTPUT_CHARS} characters elided) …\n${text.slice(text.length - (MAX_OUTPUT_CHARS - head))}`;
}

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}
