import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { saveWorkflow, startWorkflowServer, type Edge, type Node } from './support.js';

const post = (server: TestServer, nodes: Node[], edges: Edge[]) => server.api('POST', '/api/workflows', { body: { name: 'bad', nodes, edges } });

describe('workflows: validation on save', () => {
  let server: TestServer;
  before(async () => {
    server = await startWorkflowServer();
  });
  after(() => server.cleanup());

  const expectProblem = async (nodes: Node[], edges: Edge[], pattern: RegExp) => {
    const res = await post(server, nodes, edges);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.ok(res.body.details.problems.some((p: string) => pattern.test(p)), `expected ${pattern} in ${JSON.stringify(res.body.details.problems)}`);
    assert.match(res.body.error, pattern);
  };

  it('refuses two starts, and no start', async () => {
    await expectProblem([{ id: 'a', type: 'start' }, { id: 'b', type: 'start' }, { id: 'e', type: 'end' }], [{ from: 'a', to: 'e' }, { from: 'b', to: 'e' }], /2 start nodes \(a, b\)/);
    await expectProblem([{ id: 'e', type: 'end' }], [], /no start node/);
  });

  it('refuses an unreachable node, naming it', async () => {
    await expectProblem([{ id: 's', type: 'start' }, { id: 'e', type: 'end' }, { id: 'lost', type: 'end' }], [{ from: 's', to: 'e' }], /"lost" cannot be reached from the start/);
  });

  it('refuses a cycle that no loop node bounds, and accepts one through a loop body', async () => {
    const nodes: Node[] = [{ id: 's', type: 'start' }, { id: 'a', type: 'transform', config: { template: 'x' } }, { id: 'b', type: 'transform', config: { template: 'y' } }];
    await expectProblem(nodes, [{ from: 's', to: 'a' }, { from: 'a', to: 'b' }, { from: 'b', to: 'a' }], /cycle a → b → a/);
    const looped = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'l', type: 'loop', config: { maxIterations: 3 } }, { id: 'a', type: 'transform', config: { template: 'x' } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'a', branch: 'body' }, { from: 'a', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }]);
    assert.equal(looped.nodes.length, 4);
    // A cycle through the loop's exit is not bounded by it.
    await expectProblem([
      { id: 's', type: 'start' }, { id: 'l', type: 'loop', config: { maxIterations: 3 } }, { id: 'a', type: 'transform', config: { template: 'x' } }, { id: 'b', type: 'transform', config: { template: 'x' } },
    ], [{ from: 's', to: 'l' }, { from: 'l', to: 'a', branch: 'body' }, { from: 'l', to: 'b', branch: 'exit' }, { from: 'b', to: 'l' }], /cycle/);
  });

  it('refuses an unknown type and a config that does not fit its type', async () => {
    await expectProblem([{ id: 's', type: 'start' }, { id: 'x', type: 'teleport' }], [{ from: 's', to: 'x' }], /node "x" has unknown type "teleport"/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'd', type: 'delay', config: { seconds: -1 } }], [{ from: 's', to: 'd' }], /node "d" \(delay\): config/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'a', type: 'agent_session', config: { prompt: 'hi' } }], [{ from: 's', to: 'a' }], /must have required property 'agentId'/);
  });

  it('refuses a bad expression, a reference to an unknown node, and a template that is not a path', async () => {
    const edges = [{ from: 's', to: 'c' }, { from: 'c', to: 'e', branch: 'true' }];
    await expectProblem([{ id: 's', type: 'start' }, { id: 'c', type: 'condition', config: { expression: 'input.x >' } }, { id: 'e', type: 'end' }], edges, /config.expression is not a valid expression: unexpected end/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'c', type: 'condition', config: { expression: 'process.exit(1)' } }, { id: 'e', type: 'end' }], edges, /unknown name "process"/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'c', type: 'condition', config: { expression: 'nodes.ghost.output == 1' } }, { id: 'e', type: 'end' }], edges, /unknown node "ghost"/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 't', type: 'transform', config: { template: 'Hi {{input.a == 1}}' } }], [{ from: 's', to: 't' }], /is not a path/);
  });

  it('refuses bad edges: unknown nodes, missing or wrong branches, a fork without a parallel node, a join with one way in', async () => {
    const base: Node[] = [{ id: 's', type: 'start' }, { id: 'a', type: 'end' }, { id: 'b', type: 'end' }];
    await expectProblem(base, [{ from: 's', to: 'a' }, { from: 's', to: 'nowhere' }], /names unknown node "nowhere"/);
    await expectProblem(base, [{ from: 's', to: 'a' }, { from: 's', to: 'b' }], /only a parallel node forks/);
    await expectProblem(base, [{ from: 's', to: 'a', branch: 'true' }], /take no branch/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'l', type: 'loop', config: { maxIterations: 2 } }, { id: 'e', type: 'end' }], [{ from: 's', to: 'l' }, { from: 'l', to: 'e', branch: 'exit' }], /needs an edge with branch "body"/);
    await expectProblem([{ id: 's', type: 'start' }, { id: 'j', type: 'join' }], [{ from: 's', to: 'j' }], /join node "j" needs at least two incoming edges/);
  });

  it('refuses malformed, oversized and wrongly typed bodies with a clear error, storing nothing', async () => {
    const before = (await server.api('GET', '/api/workflows?total=true')).body.total;
    const malformed = await server.api('POST', '/api/workflows', { raw: '{"name": "x", "nodes": [' });
    assert.equal(malformed.status, 400);
    const wrong = await server.api('POST', '/api/workflows', { body: { name: 'x', nodes: 'start', edges: [] } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error, /nodes/);
    const huge = await server.api('POST', '/api/workflows', { body: { name: 'x', nodes: [{ id: 's', type: 'start', config: {} }], edges: [], description: 'x'.repeat(1_100_000) } });
    assert.equal(huge.status, 413);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 60; i++) deep = { deeper: deep };
    const nested = await post(server, [{ id: 's', type: 'start' }, { id: 't', type: 'transform', config: { template: deep } }], [{ from: 's', to: 't' }]);
    assert.equal(nested.status, 400);
    assert.match(nested.body.error, /nested deeper than 32/);
    const tooMany = await post(server, Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'end' })), []);
    assert.equal(tooMany.status, 400);
    assert.equal((await server.api('GET', '/api/workflows?total=true')).body.total, before);
  });

  it('validates an update against the whole graph, and keeps the old one when it fails', async () => {
    const wf = await saveWorkflow(server, [{ id: 's', type: 'start' }, { id: 'e', type: 'end' }], [{ from: 's', to: 'e' }]);
    const bad = await server.api('PUT', `/api/workflows/${wf.id}`, { body: { edges: [] } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /"e" cannot be reached/);
    const kept = await server.api('GET', `/api/workflows/${wf.id}`);
    assert.deepEqual(kept.body.edges, [{ from: 's', to: 'e' }]);
    const renamed = await server.api('PUT', `/api/workflows/${wf.id}`, { body: { name: 'renamed' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.version, 2);
    assert.equal((await server.api('DELETE', `/api/workflows/${wf.id}`)).status, 204);
    assert.equal((await server.api('GET', `/api/workflows/${wf.id}`)).status, 404);
  });
});
