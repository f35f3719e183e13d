// Issue 25 §4: each top-level folder is named for what it holds (docs/architecture.md, "Where things
// live"), and what it may import follows from that. A relative import that crosses homes against these
// rules fails here, named by file and specifier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const CONTRACT = /^extensions\/[^/]+\/contract[\w-]*\.[jt]s$/;

/** For each home: whether it may import a path (root-relative) outside itself. */
const MAY_IMPORT: Record<string, (target: string, from: string) => boolean> = {
  protocol: (t) => t === 'lib/paths.js', // the schemas' folder, for validate.ts
  lib: (t) => t.startsWith('protocol/'),
  sdk: (t) => t.startsWith('protocol/') || t.startsWith('lib/') || CONTRACT.test(t),
  kernel: (t) => t.startsWith('protocol/') || t.startsWith('lib/'),
  // Another extension only through its contract (test/kernel/no-foreign-paths.test.ts checks the rest).
  extensions: (t, from) => t.startsWith('protocol/') || t.startsWith('lib/') || t.startsWith('sdk/') || CONTRACT.test(t) || t.split('/')[1] === from.split('/')[1],
  // The CLI runs the server (kernel) and reads manifests; a bundled plugin's code is the plugin's own.
  cli: (t) => t.startsWith('protocol/') || t.startsWith('lib/') || t.startsWith('kernel/'),
  plugins: (t, from) => t.startsWith('protocol/') || t.startsWith('lib/') || t.startsWith('sdk/') || t.split('/')[1] === from.split('/')[1],
};
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"\n]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || path === 'extensions/dashboard/web' ? [] : sources(path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [path] : [];
  });
}

test('each home imports only what its name allows', () => {
  const wrong: string[] = [];
  for (const [home, allowed] of Object.entries(MAY_IMPORT)) {
    for (const file of sources(home)) {
      for (const [, specifier] of readFileSync(join(root, file), 'utf8').matchAll(IMPORT)) {
        const target = relative(root, resolve(root, dirname(file), specifier!)).split(sep).join('/');
        if (target.split('/')[0] === home && home !== 'extensions' && home !== 'plugins') continue;
        if (!allowed(target, file)) wrong.push(`${file}: ${specifier}`);
      }
    }
  }
  assert.deepEqual(wrong, [], `imports across homes that their names do not allow:\n${wrong.join('\n')}`);
});

// Small files with one job: a file past this has grown a second job to be given a file of its own.
const MAX_LINES = 400;

test(`no source file is longer than ${MAX_LINES} lines`, () => {
  const homes = [...Object.keys(MAY_IMPORT), 'scripts'];
  const long = homes.flatMap(sources).map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 })).filter((f) => f.lines > MAX_LINES);
  assert.deepEqual(long, [], `files over ${MAX_LINES} lines:\n${long.map((f) => `${f.file}: ${f.lines}`).join('\n')}`);
});
