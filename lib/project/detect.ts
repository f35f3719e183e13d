// Finds the project a command runs in: the nearest directory, walking up from cwd, that holds a marker
// file or .git; then the stacks detected there and the tasks they offer.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { detectStacks, ROOT_MARKERS, type DetectedStack, type TaskCommand } from './stacks.js';

export interface Project {
  root: string;
  /** In priority order; empty when no stack was recognised. */
  stacks: DetectedStack[];
}

export interface ResolvedTask {
  name: string;
  stack: DetectedStack;
  command: TaskCommand;
}

/** The nearest ancestor (or cwd itself) with a marker file or .git; cwd when there is none. */
export function findProjectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(`${dir}/.git`) || ROOT_MARKERS.some((m) => existsSync(`${dir}/${m}`))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

export function detectProject(cwd: string): Project {
  const root = findProjectRoot(cwd);
  const files = new Set(readdirSync(root));
  return { root, stacks: detectStacks(root, (file) => files.has(file)) };
}

/** A task from the first stack that offers it (or from the named stack). */
export function findTask(project: Project, name: string, stackId?: string): ResolvedTask | undefined {
  for (const stack of project.stacks) {
    if (stackId !== undefined && stack.id !== stackId) continue;
    const command = stack.tasks[name];
    if (command) return { name, stack, command };
  }
  return undefined;
}

/** Every task name once, from the stack that would run it. */
export function listTasks(project: Project): ResolvedTask[] {
  const seen = new Map<string, ResolvedTask>();
  for (const stack of project.stacks) {
    for (const [name, command] of Object.entries(stack.tasks)) {
      if (!seen.has(name)) seen.set(name, { name, stack, command });
    }
  }
  return [...seen.values()];
}

/** The argv a task runs with the caller's extra arguments appended. */
export function taskArgv(task: ResolvedTask, extra: string[]): string[] {
  const { argv, argsSeparator } = task.command;
  if (extra.length === 0) return [...argv];
  return argsSeparator ? [...argv, argsSeparator, ...extra] : [...argv, ...extra];
}
