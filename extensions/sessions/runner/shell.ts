// run_command: a shell command in the working directory with a timeout, its own process group (so a
// timeout or a stop kills everything it started), bounded output, and the protected-file guard.
import { execa, type ResultPromise } from 'execa';
import type { ToolSpec } from '../../_shared/providers/index.js';
import { restoreProtected, snapshotProtected } from './guard.js';
import { toolError, type Workspace } from './workspace.js';

export const DEFAULT_COMMAND_TIMEOUT_S = 30;
export const MAX_COMMAND_TIMEOUT_S = 300;
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Past this a command is stopped: it floods. */
const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;
/** The only variables a command inherits from the runner; the project's env_vars come on top. */
const BASE_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

export const SHELL_TOOL_SPEC: ToolSpec = {
  name: 'run_command',
  description: `Run a shell command in the working directory. Default timeout ${DEFAULT_COMMAND_TIMEOUT_S} s, at most ${MAX_COMMAND_TIMEOUT_S} s. Returns the exit code and output.`,
  inputSchema: {
    type: 'object',
    required: ['command'],
    additionalProperties: false,
    properties: {
      command: { type: 'string', minLength: 1, maxLength: 100_000 },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: MAX_COMMAND_TIMEOUT_S },
    },
  },
};

export class Shell {
  private readonly running = new Set<ResultPromise>();

  constructor(private readonly ws: Workspace, private readonly env: Record<string, string>) {}

  async run(command: string, timeoutSeconds = DEFAULT_COMMAND_TIMEOUT_S): Promise<{ text: string; isError: boolean }> {
    if (typeof command !== 'string' || command.trim() === '') throw toolError('command must be a non-empty string');
    const before = await snapshotProtected(this.ws);
    const child = execa(command, {
      shell: true,
      cwd: this.ws.root,
      env: { ...pick(process.env, BASE_ENV), ...this.env },
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
    const repaired = await restoreProtected(this.ws, before);
    const parts = [timedOut ? `timed out after ${timeoutSeconds} s (killed)` : `exit code ${result.exitCode ?? `signal ${result.signal}`}`];
    if (result.stdout) parts.push(`stdout:\n${clip(String(result.stdout))}`);
    if (result.stderr) parts.push(`stderr:\n${clip(String(result.stderr))}`);
    if (repaired.length > 0) parts.push(`protected files were changed and have been restored: ${repaired.join(', ')}`);
    return { text: parts.join('\n'), isError: timedOut || result.exitCode !== 0 || repaired.length > 0 };
  }

  /** Kills every command still running (the runner is leaving). */
  killAll(): void {
    for (const child of this.running) killGroup(child.pid);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
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
