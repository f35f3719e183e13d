// When the tool a task names is not installed, the way the project's stacks already know to run the same
// task: a task runner's task (just, make, task, fledge) from a language stack that has it (`just test` →
// `cargo test`), or a Python tool that uv or poetry would run, run by the interpreter on PATH
// (`uv run pytest` → `python3 -m pytest`) when it can import it. roost says which it ran instead.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { taskArgv, type Project, type ResolvedTask } from '../../lib/project/detect.js';

export interface Fallback {
  task: ResolvedTask;
  argv: string[];
  /** What roost says of it, e.g. "uv is not installed; python3 can import pytest". */
  reason: string;
}

const ENVIRONMENT_MANAGERS = new Set(['uv', 'poetry']);
const MODULE = /^[A-Za-z_]\w*$/;

/** Whether `command` would start: a path that is executable, or a name found on PATH. */
export function onPath(command: string, cwd: string, path = process.env.PATH ?? ''): boolean {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return executable(isAbsolute(command) ? command : join(cwd, command));
  return path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

export function findFallback(project: Project, task: ResolvedTask, argv: string[], extra: string[]): Fallback | undefined {
  const tool = argv[0]!;
  for (const stack of project.stacks) {
    const command = stack.tasks[task.name];
    if (stack === task.stack || !command) continue;
    const other: ResolvedTask = { name: task.name, stack, command };
    const otherArgv = taskArgv(other, extra);
    if (onPath(otherArgv[0]!, project.root)) return { task: other, argv: otherArgv, reason: `${tool} is not installed; the ${stack.id} stack runs ${task.name} too` };
  }
  return task.stack.id === 'python' ? interpreterFallback(task, argv, project.root) : undefined;
}

/** `uv run <module> …` / `poetry run <module> …` (and `uv build`) as `python3 -m <module> …`. */
function interpreterFallback(task: ResolvedTask, argv: string[], root: string): Fallback | undefined {
  const [tool, verb, ...rest] = argv;
  if (!ENVIRONMENT_MANAGERS.has(tool!) || !onPath('python3', root)) return undefined;
  const [module, args] = verb === 'run' ? [rest[0], rest.slice(1)] : verb === 'build' ? ['build', rest] : [undefined, []];
  if (!module || !MODULE.test(module)) return undefined;
  if (spawnSync('python3', ['-c', `import ${module}`], { cwd: root, stdio: 'ignore' }).status !== 0) return undefined;
  return { task, argv: ['python3', '-m', module, ...args], reason: `${tool} is not installed; python3 can import ${module}` };
}
