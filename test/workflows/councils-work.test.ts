// Council and work-task nodes against a stand-in for those extensions' routes (test/fixtures/
// extensions/_workflows/fx-work): each node launches once, waits for the outcome, and a cancelled run
// stops what it launched.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';
import type { TestServer } from '../helpers/server.js';
import { ended, saveWorkflow, startWorkflowServer, trigger, untilNode, untilRun } from './support.js';

const STAND_IN = join(repoRoot, 'test/fixtures/extensions/_workflows/fx-work');
const SERVED = ['POST /api/councils/:id/launch', 'POST /api/work-tasks'];

describe('workflows: council and work-task nodes', () => {
  let server: TestServer;
  before(async () => {
    server = await startWorkflowServer();
    // Whatever real extension serves these routes gives way to the stand-in.
    const plugins = (await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; state: string; routes: string[] }>;
    for (const p of plugins) {
      if (p.state !== 'unloaded' && p.routes.some((r) => SERVED.some((s) => r.includes(s)))) assert.equal((await server.api('POST', `/api/plugins/${p.name}/unload`)).status, 200);
    }
    const loaded = await server.api('POST', '/api/plugins/load', { body: { path: STAND_IN } });
    assert.equal(loaded.status, 201, loaded.text);
  });
  after(() => server.cleanup());

  const records = async () => (await server.api('GET', '/api/fx-work/records')).body.records as any[];
  const finish = (id: string, state: string) => server.api('POST', `/api/fx-work/records/${id}`, { body: { state } });

  it('launches a council once, waits for it to complete, then creates a work task and waits for it', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' },
      { id: 'debate', type: 'council', config: { councilId: 'c-1', prompt: 'Should we ship {{input.what}}?' } },
      { id: 'build', type: 'work_task', config: { description: 'Ship {{input.what}}: {{nodes.debate.output.stage}}', agentId: 'agent-1' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.build.output.status}}' } },
    ], [{ from: 's', to: 'debate' }, { from: 'debate', to: 'build' }, { from: 'build', to: 'e' }]);
    const run = await trigger(server, wf.id, { what: 'v2' });
    const debate = await untilNode(server, run.id, 'debate', (n) => typeof n.state.launchId === 'string');
    const [launch] = await records();
    assert.equal(launch.id, debate.state.launchId);
    assert.deepEqual(launch.body, { prompt: 'Should we ship v2?', idempotencyKey: `workflow:${run.id}:debate:2` });
    assert.equal(launch.councilId, 'c-1');
    await finish(launch.id, 'completed');

    const build = await untilNode(server, run.id, 'build', (n) => typeof n.state.taskId === 'string');
    const task = (await records()).find((r) => r.id === build.state.taskId);
    assert.deepEqual(task.body, { description: 'Ship v2: completed', agentId: 'agent-1', idempotencyKey: `workflow:${run.id}:build:3` });
    await finish(task.id, 'completed');
    const done = await untilRun(server, run.id, ended);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.output, 'completed');
    assert.equal((await records()).length, 2, 'one launch, one task');
  });

  it('fails the run when the work task fails, and stops what a cancelled run launched', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'build', type: 'work_task', config: { description: 'do it' } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'build' }, { from: 'build', to: 'e' }]);
    const failing = await trigger(server, wf.id, null);
    const node = await untilNode(server, failing.id, 'build', (n) => typeof n.state.taskId === 'string');
    await finish(node.state.taskId, 'failed');
    const failed = await untilRun(server, failing.id, ended);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /node "build" \(work_task\) failed: work task .* ended failed/);

    const council = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'debate', type: 'council', config: { councilId: 'c-2', prompt: 'long one' } }, { id: 'e', type: 'end' },
    ], [{ from: 's', to: 'debate' }, { from: 'debate', to: 'e' }]);
    const cancelled = await trigger(server, council.id, null);
    const launched = await untilNode(server, cancelled.id, 'debate', (n) => typeof n.state.launchId === 'string');
    const res = await server.api('POST', `/api/workflow-runs/${cancelled.id}/action`, { body: { action: 'cancel' } });
    assert.equal(res.body.status, 'cancelled');
    assert.equal((await records()).find((r) => r.id === launched.state.launchId).stage, 'aborted');
  });

  it('runs at most maxConcurrentNodes of a run at once; the others wait their turn', async () => {
    const wf = await saveWorkflow(server, [
      { id: 's', type: 'start' }, { id: 'fork', type: 'parallel' },
      { id: 'a', type: 'council', config: { councilId: 'limit', prompt: 'a' } },
      { id: 'b', type: 'council', config: { councilId: 'limit', prompt: 'b' } },
      { id: 'c', type: 'council', config: { councilId: 'limit', prompt: 'c' } },
      { id: 'j', type: 'join' }, { id: 'e', type: 'end' },
    ], [
      { from: 's', to: 'fork' }, { from: 'fork', to: 'a' }, { from: 'fork', to: 'b' }, { from: 'fork', to: 'c' },
      { from: 'a', to: 'j' }, { from: 'b', to: 'j' }, { from: 'c', to: 'j' }, { from: 'j', to: 'e' },
    ], { settings: { maxConcurrentNodes: 2 } });
    const run = await trigger(server, wf.id, null);
    const launches = async () => (await records()).filter((r) => r.councilId === 'limit' && r.body.prompt.length === 1);
    const two = await untilRun(server, run.id, (r) => r.nodeRuns.filter((n: any) => n.nodeType === 'council' && n.state.launchId).length === 2);
    assert.deepEqual(two.nodeRuns.filter((n: any) => n.nodeType === 'council').map((n: any) => n.status).sort(), ['pending', 'running', 'running']);
    assert.equal((await launches()).length, 2);
    const [first] = await launches();
    await finish(first.id, 'completed');
    await untilRun(server, run.id, (r) => r.nodeRuns.filter((n: any) => n.nodeType === 'council' && n.state.launchId).length === 3);
    for (const launch of await launches()) await finish(launch.id, 'completed');
    const done = await untilRun(server, run.id, ended);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((await launches()).length, 3);
  });
});
