// Tasks a project declares itself, in the files task runners read: fledge.toml [tasks], a justfile,
// Taskfile.yml and a Makefile. They come before the stacks detected from marker files: what a project
// wrote down is what it means by `test`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { justfileTasks } from './justfile.js';
import type { DetectedStack, TaskCommand } from './stacks.js';

type Detector = (root: string, has: (file: string) => boolean) => DetectedStack | undefined;

export const TASK_FILES = ['fledge.toml', 'justfile', 'Justfile', '.justfile', 'Taskfile.yml', 'Taskfile.yaml', 'Makefile', 'makefile', 'GNUmakefile'];

const read = (root: string, file: string) => {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return '';
  }
};

/** `[tasks] name = "cmd"` or `[tasks.name] cmd = "…"`; extra arguments reach the command as "$@". */
const fledgeToml: Detector = (root, has) => {
  if (!has('fledge.toml')) return undefined;
  let tasks: Record<string, unknown> = {};
  try {
    tasks = ((parseToml(read(root, 'fledge.toml')) as { tasks?: Record<string, unknown> }).tasks) ?? {};
  } catch {
    return undefined; // a fledge.toml roost cannot read declares nothing it could run
  }
  const commands: Record<string, TaskCommand> = {};
  for (const [name, def] of Object.entries(tasks)) {
    const command = typeof def === 'string' ? def : typeof (def as { cmd?: unknown })?.cmd === 'string' ? (def as { cmd: string }).cmd : undefined;
    if (command) commands[name] = { argv: ['sh', '-c', `${command} "$@"`, name] };
  }
  return Object.keys(commands).length ? { id: 'fledge', tool: 'sh', marker: 'fledge.toml', tasks: commands } : undefined;
};

const justfile: Detector = (root, has) => {
  const marker = ['justfile', 'Justfile', '.justfile'].find(has);
  if (!marker) return undefined;
  return fromNames('just', 'just', marker, justfileTasks(root, marker, read(root, marker)), (n) => ['just', n]);
};

const taskfile: Detector = (root, has) => {
  const marker = ['Taskfile.yml', 'Taskfile.yaml'].find(has);
  if (!marker) return undefined;
  // The keys one level below the top-level `tasks:` (no YAML library: task names are plain keys).
  const lines = read(root, marker).split('\n');
  const start = lines.findIndex((l) => /^tasks:\s*$/.test(l));
  const names: string[] = [];
  if (start !== -1) {
    const indent = /^(\s+)\S/.exec(lines.slice(start + 1).find((l) => /^\s+\S/.test(l) && !/^\s*#/.test(l)) ?? '')?.[1];
    for (const line of lines.slice(start + 1)) {
      if (/^\S/.test(line)) break;
      const key = indent ? new RegExp(`^${indent}([A-Za-z0-9_:.-]+):`).exec(line) : null;
      if (key) names.push(key[1]!);
    }
  }
  return fromNames('task', 'task', marker, names, (n) => ['task', n], '--');
};

const makefile: Detector = (root, has) => {
  const marker = ['GNUmakefile', 'makefile', 'Makefile'].find(has);
  if (!marker) return undefined;
  const names = matches(read(root, marker), /^([A-Za-z0-9][A-Za-z0-9_./-]*)\s*:(?![=:])/gm).filter((n) => !n.includes('%'));
  return fromNames('make', 'make', marker, names, (n) => ['make', n]);
};

export const TASK_FILE_DETECTORS: Detector[] = [fledgeToml, justfile, taskfile, makefile];

function matches(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))];
}

function fromNames(id: string, tool: string, marker: string, names: string[], argv: (name: string) => string[], argsSeparator?: string): DetectedStack | undefined {
  if (names.length === 0) return undefined;
  const tasks = Object.fromEntries(names.map((n) => [n, { argv: argv(n), ...(argsSeparator ? { argsSeparator } : {}) }]));
  return { id, tool, marker, tasks };
}
