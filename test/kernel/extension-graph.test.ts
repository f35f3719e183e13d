// The extension graph in docs/architecture.md is the one the manifests declare: regenerated from every
// plugin.toml and compared, so a `requires` or `uses` line changed without the picture fails here.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
// @ts-expect-error: a plain .mjs script, without types
import { DOC, readGraph, renderGraph, withGraph } from '../../scripts/extension-graph.mjs';

describe('docs/architecture.md extension graph', () => {
  it('matches the manifests (run node scripts/extension-graph.mjs after changing requires or uses)', async () => {
    const doc = await readFile(DOC, 'utf8');
    assert.equal(withGraph(doc, renderGraph(readGraph())), doc);
  });

  it('draws requires solid and uses dotted, and has no cycle of hard requirements', () => {
    const nodes: Array<{ name: string; requires: string[]; uses: string[] }> = readGraph();
    const block: string = renderGraph(nodes);
    assert.match(block, /\n {2}sessions --> agents\n/);
    assert.match(block, /\n {2}messaging -\.-> sessions\n/);
    const byName = new Map(nodes.map((n) => [n.name, n]));
    for (const node of nodes) for (const name of [...node.requires, ...node.uses]) assert.ok(byName.has(name), `${node.name} names ${name}, which no extension is`);
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, path: string[]): void => {
      assert.ok(!visiting.has(name), `hard requirements form a cycle: ${[...path, name].join(' → ')}`);
      if (done.has(name)) return;
      visiting.add(name);
      for (const next of byName.get(name)?.requires ?? []) visit(next, [...path, name]);
      visiting.delete(name);
      done.add(name);
    };
    for (const node of nodes) visit(node.name, []);
  });
});
