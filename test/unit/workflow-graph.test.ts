// A workflow's graph checked on save, on its own: a valid graph passes; every problem is reported at
// once, each naming the node or edge at fault; a cycle is allowed only through a loop node's body.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateGraph } from '../../extensions/workflows/graph.js';
import type { Graph } from '../../extensions/workflows/node-types.js';

/** The problems validateGraph reports for a graph, or [] when it passes. */
function problems(graph: Graph): string[] {
  try {
    validateGraph(graph);
    return [];
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'VALIDATION_ERROR');
    return (err as { details?: { problems: string[] } }).details!.problems;
  }
}

const node = (id: string, type: string, config?: Record<string, unknown>) => ({ id, type, ...(config ? { config } : {}) }) as Graph['nodes'][number];
const edge = (from: string, to: string, branch?: string) => ({ from, to, ...(branch ? { branch } : {}) }) as Graph['edges'][number];

describe('workflow graph validation', () => {
  it('passes a graph with a condition, a bounded loop, a fork and its join', () => {
    const graph: Graph = {
      nodes: [
        node('s', 'start'),
        node('check', 'condition', { expression: 'input.n > 1' }),
        node('again', 'loop', { maxIterations: 3, while: 'nodes.work.output.more == true' }),
        node('work', 'transform', { template: { n: '{{input.n}}' } }),
        node('fork', 'parallel'),
        node('a', 'delay', { seconds: 1 }),
        node('b', 'delay', { until: '{{input.at}}' }),
        node('meet', 'join'),
        node('e', 'end', { output: { done: true } }),
      ],
      edges: [
        edge('s', 'check'), edge('check', 'again', 'true'), edge('check', 'e', 'false'),
        edge('again', 'work', 'body'), edge('work', 'again'), edge('again', 'fork', 'exit'),
        edge('fork', 'a'), edge('fork', 'b'), edge('a', 'meet'), edge('b', 'meet'), edge('meet', 'e'),
      ],
    };
    assert.deepEqual(problems(graph), []);
  });

  it('reports every problem of nodes and edges at once', () => {
    const found = problems({
      nodes: [
        node('s', 'start'), node('s2', 'start'), node('x', 'teleport'), node('c', 'condition', { expression: 'input.a = 1' }),
        node('t', 'transform', { template: '{{nodes.ghost.output}}' }), node('l', 'loop', {}), node('e', 'end'), node('e', 'end'),
      ],
      edges: [edge('s', 'c'), edge('c', 't'), edge('c', 'nowhere', 'true'), edge('t', 't'), edge('e', 's')],
    });
    const expected = [
      /node "e" is declared twice/,
      /node "x" has unknown type "teleport"/,
      /node "c": config.expression is not a valid expression: unexpected "="/,
      /node "t": config.template refers to unknown node "ghost"/,
      /node "l" \(loop\): config must have required property 'maxIterations'/,
      /the workflow has 2 start nodes \(s, s2\)/,
      /edge c → t: a condition node's edges must say "true" or "false"/,
      /edge c → nowhere \(true\) names unknown node "nowhere"/,
      /edge t → t connects a node to itself/,
      /edge e → s enters the start node/,
      /edge e → s leaves an end node/,
    ];
    for (const pattern of expected) assert.ok(found.some((p) => pattern.test(p)), `${pattern} in:\n${found.join('\n')}`);
  });

  it('names the nodes the start cannot reach, and a cycle that no loop bounds', () => {
    assert.deepEqual(problems({ nodes: [node('s', 'start'), node('e', 'end'), node('island', 'end')], edges: [edge('s', 'e')] }), ['node "island" cannot be reached from the start']);
    const cycle = problems({
      nodes: [node('s', 'start'), node('a', 'transform', { template: 1 }), node('b', 'transform', { template: 2 })],
      edges: [edge('s', 'a'), edge('a', 'b'), edge('b', 'a')],
    });
    assert.equal(cycle.length, 1);
    assert.match(cycle[0]!, /cycle a → b → a that does not pass through a loop node's body/);
  });

  it('holds forks, joins and loops to their shapes', () => {
    const found = problems({
      nodes: [node('s', 'start'), node('fork', 'parallel'), node('meet', 'join'), node('l', 'loop', { maxIterations: 2 }), node('e', 'end')],
      edges: [edge('s', 'fork'), edge('fork', 'meet'), edge('meet', 'l'), edge('l', 'e', 'exit'), edge('l', 'e', 'sideways')],
    });
    for (const pattern of [/parallel node "fork" needs at least two outgoing edges/, /join node "meet" needs at least two incoming edges/, /node "l" \(loop\) needs an edge with branch "body"/, /edge l → e \(sideways\): a loop node's edges take the branches body, exit/]) {
      assert.ok(found.some((p) => pattern.test(p)), `${pattern} in:\n${found.join('\n')}`);
    }
  });
});
