// Validation with the project's own commands, detected as `roost run` detects them (lint, build, test,
// whichever the project has), run in the task's worktree.
import { spawn } from 'node:child_process';
import { detectProject, findTask } from '../../lib/project/detect.js';
import type { ValidationResult } from './store.js';

export const VALIDATION_TASKS = ['lint', 'build', 'test'];
const OUTPUT_TAIL = 4000;

export async function validate(dir: string, env: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<ValidationResult[]> {
  const project = detectProject(dir);
  const results: ValidationResult[] = [];
  for (const name of VALIDATION_TASKS) {
    const task = findTask(project, name);
    if (!task) continue;
    const argv = task.command.argv;
    const run = await runCommand(argv, project.root, env, timeoutMs, signal);
    results.push({ task: name, command: argv.join(' '), exitCode: run.code, ok: run.code === 0, output: run.output });
    if (signal.aborted) break;
  }
  return results;
}

function runCommand(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...process.env, ...env, CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // The whole process group: a test runner's own children die with it.
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      output += `\n(timed out after ${Math.round(timeoutMs / 1000)} s)`;
      kill();
    }, timeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, output: `${output}\n${err.message}`.slice(-OUTPUT_TAIL) });
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      resolve({ code: code ?? (sig ? 128 : 1), output });
    });
  });
}
