// Issue 25 §5, one wiring style: an extension's running state is what its `setup` returns, handed to
// every handler after ctx (sdk/extension.ts), so no server extension keeps it in a module-level `let`
// (or `var`). A top-level declaration is one written at the start of a line; each found names its file
// and line. A true constant, or a memo of a pure function, is a `const` with a comment saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
/** The dashboard's browser app is not a server extension's code. */
const SKIPPED = new Set(['node_modules', 'dist', 'extensions/dashboard/web']);
const MODULE_LET = /^(?:export\s+)?(?:let|var)\s/;

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || SKIPPED.has(path) ? [] : sources(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `file:line: text` for each module-level let or var of the source. */
function moduleLets(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (MODULE_LET.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

test('no server extension keeps state in a module-level let', () => {
  const files = sources('extensions');
  assert.ok(files.length > 300, `the scan found only ${files.length} files`);
  const found = files.flatMap((file) => moduleLets(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(found, [], `module-level state (return it from setup instead):\n${found.join('\n')}`);
});

test('a top-level let or var is found with its line; one inside a function is not', () => {
  const text = 'const a = 1;\nlet b = 2;\nexport let c = 3;\nfunction f() {\n  let d = 4;\n  return d;\n}\nvar e;\n';
  assert.deepEqual(moduleLets('x.ts', text), ['x.ts:2: let b = 2;', 'x.ts:3: export let c = 3;', 'x.ts:8: var e;']);
});
