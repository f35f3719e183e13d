// The extension graph of docs/architecture.md, drawn from the manifests: each server extension's
// [server] requires (a solid arrow) and uses (a dotted one), as a Mermaid block between the markers.
// `node scripts/extension-graph.mjs` rewrites the block; `--check` exits 1 when it is out of date
// (test/kernel/extension-graph.test.ts runs the same comparison).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = join(root, 'docs', 'architecture.md');
const START = '<!-- extension-graph:start (scripts/extension-graph.mjs writes this block) -->';
const END = '<!-- extension-graph:end -->';

/** Each server extension of `extensionsDir` with what it requires and uses, by name. */
export function readGraph(extensionsDir = join(root, 'extensions')) {
  const nodes = [];
  for (const folder of readdirSync(extensionsDir, { withFileTypes: true })) {
    if (!folder.isDirectory() || folder.name.startsWith('_')) continue;
    let manifest;
    try {
      manifest = parse(readFileSync(join(extensionsDir, folder.name, 'plugin.toml'), 'utf8'));
    } catch {
      continue;
    }
    if (!manifest.server) continue;
    nodes.push({ name: manifest.plugin.name, requires: [...(manifest.server.requires ?? [])].sort(), uses: [...(manifest.server.uses ?? [])].sort() });
  }
  return nodes.sort((a, b) => a.name.localeCompare(b.name));
}

/** The Mermaid block: an arrow from each extension to what it calls. */
export function renderGraph(nodes) {
  const id = (name) => name.replace(/-/g, '_');
  const lines = ['```mermaid', 'flowchart LR'];
  for (const node of nodes) lines.push(`  ${id(node.name)}[${node.name}]`);
  for (const node of nodes) {
    for (const required of node.requires) lines.push(`  ${id(node.name)} --> ${id(required)}`);
    for (const used of node.uses) lines.push(`  ${id(node.name)} -.-> ${id(used)}`);
  }
  lines.push('```');
  return lines.join('\n');
}

/** The document with its block replaced by `block`; throws when the markers are missing. */
export function withGraph(doc, block) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${START} … ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${block}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(DOC, 'utf8');
  const next = withGraph(doc, renderGraph(readGraph()));
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      process.stderr.write('docs/architecture.md: the extension graph is out of date; run node scripts/extension-graph.mjs\n');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(DOC, next);
  }
}
