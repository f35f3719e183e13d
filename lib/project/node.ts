// Node projects: the tasks are the package's own scripts, run by the package manager its lockfile
// names. In a workspace the lockfile lives in an ancestor, so the search walks up to the repository root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import type { DetectedStack, TaskCommand } from './stacks.js';

const LOCKFILES: Array<[file: string, tool: string]> = [
  ['bun.lockb', 'bun'], ['bun.lock', 'bun'], ['pnpm-lock.yaml', 'pnpm'], ['yarn.lock', 'yarn'], ['package-lock.json', 'npm'],
];

/** `fmt` is the roost name; many packages call the script `format`. */
const ALIASES: Record<string, string> = { fmt: 'format' };

export function detectNode(root: string, has: (file: string) => boolean): DetectedStack | undefined {
  if (!has('package.json')) return undefined;
  const pkg = readPackageJson(join(root, 'package.json'));
  const tool = packageManager(root, pkg);
  const scripts = typeof pkg.scripts === 'object' && pkg.scripts !== null ? (pkg.scripts as Record<string, unknown>) : {};
  const tasks: Record<string, TaskCommand> = {};
  const script = (name: string): TaskCommand =>
    tool === 'npm' ? { argv: ['npm', 'run', name], argsSeparator: '--' } : { argv: [tool, 'run', name] };
  for (const name of Object.keys(scripts)) tasks[name] = script(name);
  for (const [alias, name] of Object.entries(ALIASES)) {
    if (!(alias in tasks) && name in tasks) tasks[alias] = script(name);
  }
  return { id: 'node', tool, marker: 'package.json', tasks };
}

function readPackageJson(path: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `${path}: ${(err as Error).message}`);
  }
}

function packageManager(root: string, pkg: Record<string, unknown>): string {
  for (let dir = root; ; dir = dirname(dir)) {
    const found = LOCKFILES.find(([file]) => existsSync(join(dir, file)));
    if (found) return found[1];
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) break;
  }
  // No lockfile yet: corepack's "packageManager": "pnpm@9.1.0" still names the tool.
  const declared = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('@')[0] : '';
  return ['npm', 'pnpm', 'yarn', 'bun'].includes(declared) ? declared : 'npm';
}
