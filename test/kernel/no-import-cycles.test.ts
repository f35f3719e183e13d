// Issue 25 §5: no circle of value imports among the server's own modules (kernel/, protocol/,
// extensions/, cli/). A type-only import (`import type`, or braces whose every name is `type X`) is
// erased at build time and does not count. A circle names its files, so the knot can be untied: pass a
// function in, or move the shared piece to a module of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const SCANNED = ['kernel', 'protocol', 'extensions', 'cli'];
const SKIPPED = new Set(['node_modules', 'dist']);
const RELATIVE_IMPORT = /^(?:import|export)\s+([^;'"]*?)\s+from\s+'(\.{1,2}\/[^']+)'/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function typeOnly(clause: string): boolean {
  if (/^type\b/.test(clause)) return true;
  const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1]?.split(',').map((name) => name.trim()).filter(Boolean);
  return names !== undefined && names.length > 0 && names.every((name) => name.startsWith('type '));
}

function valueImports(file: string): string[] {
  const targets: string[] = [];
  for (const [, clause, spec] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
    if (typeOnly(clause!)) continue;
    const target = resolve(dirname(file), spec!.replace(/\.js$/, '.ts'));
    if (existsSync(target)) targets.push(target);
  }
  return targets;
}

/** The strongly connected groups of more than one file (Tarjan), each a circle of value imports. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) found.push(group);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('no circle of value imports in kernel/, protocol/, extensions/ or cli/', () => {
  const graph = new Map<string, string[]>();
  for (const dir of SCANNED) for (const file of sources(join(root, dir))) graph.set(resolve(file), valueImports(file));
  assert.ok(graph.size > 500, `the scan found only ${graph.size} files`);
  const named = circles(graph).map((group) => group.map((file) => relative(root, file)).sort().join(' → '));
  assert.deepEqual(named, [], `circles of value imports:\n${named.join('\n')}`);
});

test('a type-only import does not count; a value import does', () => {
  assert.equal(typeOnly('type { Engine }'), true);
  assert.equal(typeOnly('{ type Engine, type TaskRow }'), true);
  assert.equal(typeOnly('{ TaskEnded, type Engine }'), false);
  assert.equal(typeOnly('* as x'), false);
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(circles(graph).map((group) => group.sort()), [['a', 'b', 'c']]);
});
