// The packages of a JavaScript workspace: package.json `workspaces` (npm, yarn, bun: a list of globs, or
// yarn's {packages: [...]}) or pnpm-workspace.yaml's `packages:` list, and the order to run a task across
// them: a package after the workspace packages it depends on.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';

export interface WorkspacePackage {
  name: string;
  dir: string;
  scripts: string[];
  /** Names of the other workspace packages it depends on (any dependency field). */
  dependsOn: string[];
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The workspace packages declared at `root`, in dependency order; none when root declares no workspace. */
export function workspacePackages(root: string): WorkspacePackage[] {
  const patterns = workspacePatterns(root);
  if (patterns.length === 0) return [];
  const excluded = patterns.filter((p) => p.startsWith('!')).flatMap((p) => expand(root, p.slice(1)));
  const dirs = [...new Set(patterns.filter((p) => !p.startsWith('!')).flatMap((p) => expand(root, p)))].filter((d) => !excluded.includes(d));
  const manifests = dirs.map((dir) => ({ dir, pkg: readJson(join(dir, 'package.json')) }));
  const names = new Set(manifests.map(({ dir, pkg }) => packageName(dir, pkg)));
  const packages = manifests.map(({ dir, pkg }): WorkspacePackage => ({
    name: packageName(dir, pkg),
    dir,
    scripts: isRecord(pkg.scripts) ? Object.keys(pkg.scripts) : [],
    dependsOn: [...new Set(DEPENDENCY_FIELDS.flatMap((field) => (isRecord(pkg[field]) ? Object.keys(pkg[field]) : [])))].filter((n) => names.has(n) && n !== packageName(dir, pkg)),
  }));
  return inDependencyOrder(packages);
}

/** The nearest folder from `start` up (within its repository) that declares a workspace. */
export function workspaceRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (workspacePatterns(dir).length > 0) return dir;
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return undefined;
  }
}

/** A package by its name or its folder (relative to the root). */
export function findWorkspacePackage(root: string, packages: WorkspacePackage[], wanted: string): WorkspacePackage | undefined {
  return packages.find((p) => p.name === wanted) ?? packages.find((p) => p.dir === resolve(root, wanted));
}

function workspacePatterns(root: string): string[] {
  const pkgFile = join(root, 'package.json');
  const pkg = existsSync(pkgFile) ? readJson(pkgFile) : {};
  const declared = Array.isArray(pkg.workspaces) ? pkg.workspaces : isRecord(pkg.workspaces) && Array.isArray(pkg.workspaces.packages) ? pkg.workspaces.packages : undefined;
  if (declared) return declared.filter((p): p is string => typeof p === 'string');
  const pnpm = join(root, 'pnpm-workspace.yaml');
  return existsSync(pnpm) ? pnpmPackages(readFileSync(pnpm, 'utf8')) : [];
}

/**
 * The `packages:` list of pnpm-workspace.yaml, read line by line: a list of quoted or bare globs is all
 * that key holds (roost ships no YAML parser; see docs/cli.md).
 */
function pnpmPackages(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^packages:\s*(#.*)?$/.test(l));
  if (start === -1) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const item = /^\s+-\s+(['"]?)([^'"#]+?)\1\s*(#.*)?$/.exec(line);
    if (item) out.push(item[2]!);
  }
  return out;
}

/** Folders with a package.json matching one glob: exact paths, `dir/*` (children) and `dir/**` (any depth). */
function expand(root: string, pattern: string): string[] {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  const starAt = clean.search(/[*?[{]/);
  if (starAt === -1) return existsSync(join(root, clean, 'package.json')) ? [resolve(root, clean)] : [];
  const base = resolve(root, clean.slice(0, clean.lastIndexOf('/', starAt) + 1));
  const rest = clean.slice(clean.lastIndexOf('/', starAt) + 1);
  if (rest !== '*' && rest !== '**') throw new RoostError('VALIDATION_ERROR', `workspace pattern "${pattern}": roost reads exact folders, dir/* and dir/**`);
  if (relative(root, base).startsWith('..')) throw new RoostError('VALIDATION_ERROR', `workspace pattern "${pattern}" leaves the project`);
  return subfolders(base, rest === '**').filter((dir) => existsSync(join(dir, 'package.json')));
}

function subfolders(dir: string, deep: boolean): string[] {
  if (!existsSync(dir)) return [];
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.'))
    .map((e) => join(dir, e.name))
    .sort();
  return deep ? children.flatMap((child) => [child, ...subfolders(child, true)]) : children;
}

/** Depth-first topological order, stable by the declared order; a cycle is an error that names it. */
function inDependencyOrder(packages: WorkspacePackage[]): WorkspacePackage[] {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const done = new Set<string>();
  const order: WorkspacePackage[] = [];
  const visit = (pkg: WorkspacePackage, path: string[]) => {
    if (done.has(pkg.name)) return;
    if (path.includes(pkg.name)) throw new RoostError('VALIDATION_ERROR', `workspace dependency cycle: ${[...path.slice(path.indexOf(pkg.name)), pkg.name].join(' → ')}`);
    for (const dep of pkg.dependsOn) visit(byName.get(dep)!, [...path, pkg.name]);
    done.add(pkg.name);
    order.push(pkg);
  };
  for (const pkg of packages) visit(pkg, []);
  return order;
}

function packageName(dir: string, pkg: Record<string, unknown>): string {
  return typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : basename(dir);
}

function readJson(file: string): Record<string, any> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isRecord(value) ? value : {};
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `${file}: ${(err as Error).message}`);
  }
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
