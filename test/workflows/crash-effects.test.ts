// Council and work-task nodes against the real councils and work-tasks extensions (the fake Anthropic
// API and code host, git repositories in temp folders), killed -9 in the instant between starting the
// launch or the task and storing its id (the id is taken off the stored node run while the server is
// down). Relaunched, the node asks again with its idempotency key and is answered the record the first
// ask made: the run completes with one launch and one task, and what their sessions cost is recorded.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RecordedRequest } from '../fakes/provider-http.js';
import { pluginInfo } from '../fixtures/extensions/helpers.js';
import { isAlive } from '../helpers/sandbox-pids.js';
import { sqliteFilesOnly } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { changeRows } from '../kernel/sqlite-file.js';
import { startHarness, type Harness } from '../work-tasks/harness.js';
import { ended, saveWorkflow, trigger, untilNode, untilRun } from './support.js';

describe('workflows: kill -9 while a council or work-task node starts what it waits on', () => {
  let h: Harness;
  /** While true, the agents' turns hang: the node waits on what it started. */
  let holding = true;
  before(async () => {
    h = await startHarness();
    h.anthropic.setScript((req: RecordedRequest) => {
      if (holding) return { hang: true };
      const said = JSON.stringify((req.body as { messages?: unknown }).messages ?? []);
      if (said.includes('tool_result')) return 'Wrote answer.txt.';
      if (said.includes('Write 42')) return { toolUses: [{ name: 'write_file', input: { path: 'answer.txt', content: '42' } }] };
      return 'VOTE: APPROVE\nREASON: fine.';
    });
  });
  after(() => h?.close());

  /** kill -9, then, with nothing running, forget the id the node stored (as if it died before storing it). */
  async function crashBeforeTheIdsWereStored(nodeRunIds: string[]): Promise<void> {
    const extension = (await pluginInfo(h.server, 'workflows'))?.pid as number | undefined;
    await h.crashAndRelaunch(async () => {
      await waitFor('the workflows extension to leave', async () => (isAlive(extension) ? undefined : true), 15_000);
      for (const nodeRunId of nodeRunIds) {
        const changed = await changeRows(join(h.dataDir, 'extensions', 'workflows', 'workflows.sqlite'), 'UPDATE workflow_node_runs SET state = ? WHERE id = ?', [JSON.stringify({ fromNode: 's' }), nodeRunId]);
        assert.equal(changed, 1);
      }
      holding = false;
    });
  }

  // One crash catches both nodes (a relaunch costs a server start and its extensions).
  it('a council node launches once, and a work-task node creates one task', { skip: sqliteFilesOnly }, async () => {
    holding = true;
    const members = [await h.agent(), await h.agent()];
    const council = await h.server.api('POST', '/api/councils', { body: { name: 'ship council', members: members.map((m) => m.id), rounds: 0 } });
    assert.equal(council.status, 201, council.text);
    const debateFlow = await saveWorkflow(h.server, [
      { id: 's', type: 'start' },
      { id: 'debate', type: 'council', config: { councilId: council.body.id, prompt: 'Should we ship {{input.what}}?' } },
      { id: 'e', type: 'end', config: { output: '{{nodes.debate.output.stage}}' } },
    ], [{ from: 's', to: 'debate' }, { from: 'debate', to: 'e' }]);
    const debateRun = await trigger(h.server, debateFlow.id, { what: 'v3' });

    const repo = await h.repo();
    const agent = await h.agent();
    const buildFlow = await saveWorkflow(h.server, [
      { id: 's', type: 'start' },
      { id: 'build', type: 'work_task', config: { description: 'Write 42 into answer.txt', agentId: agent.id, projectId: repo.projectId } },
      { id: 'e', type: 'end', config: { output: '{{nodes.build.output.status}}' } },
    ], [{ from: 's', to: 'build' }, { from: 'build', to: 'e' }]);
    const buildRun = await trigger(h.server, buildFlow.id, null);

    const launched = await untilNode(h.server, debateRun.id, 'debate', (n) => typeof n.state.launchId === 'string');
    const tasked = await untilNode(h.server, buildRun.id, 'build', (n) => typeof n.state.taskId === 'string');
    await crashBeforeTheIdsWereStored([launched.id, tasked.id]);

    const debated = await untilRun(h.server, debateRun.id, ended, 90_000);
    assert.equal(debated.status, 'completed', JSON.stringify(debated));
    assert.equal(debated.output, 'completed');
    const launches = (await h.server.api('GET', `/api/councils/${council.body.id}/launches`)).body.launches;
    assert.deepEqual(launches.map((l: any) => l.id), [launched.state.launchId], 'one launch');
    const debate = debated.nodeRuns.find((n: any) => n.nodeId === 'debate');
    assert.equal(debate.state.launchId, launched.state.launchId);
    assert.ok(debate.cost > 0, 'what the members were charged is recorded');
    assert.equal(debated.cost, debate.cost);

    const built = await untilRun(h.server, buildRun.id, ended, 90_000);
    assert.equal(built.status, 'completed', JSON.stringify(built));
    assert.equal(built.output, 'completed');
    const tasks = (await h.server.api('GET', `/api/work-tasks?agentId=${agent.id}`)).body.tasks;
    assert.deepEqual(tasks.map((t: any) => t.id), [tasked.state.taskId], 'one task');
    const build = built.nodeRuns.find((n: any) => n.nodeId === 'build');
    assert.ok(build.cost > 0, "what the task's session was charged is recorded");
  });

  it('the councils and work-tasks routes answer a repeated idempotencyKey with the record it made (200)', async () => {
    holding = true;
    const members = [await h.agent(), await h.agent()];
    const council = (await h.server.api('POST', '/api/councils', { body: { name: 'keyed', members: members.map((m) => m.id), rounds: 0 } })).body;
    const other = (await h.server.api('POST', '/api/councils', { body: { name: 'other', members: members.map((m) => m.id), rounds: 0 } })).body;
    const launch = (body: unknown, id = council.id) => h.server.api('POST', `/api/councils/${id}/launch`, { body });
    const first = await launch({ prompt: 'once?', idempotencyKey: 'key-1' });
    assert.equal(first.status, 201, first.text);
    const again = await launch({ prompt: 'once?', idempotencyKey: 'key-1' });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.id, first.body.id);
    const elsewhere = await launch({ prompt: 'once?', idempotencyKey: 'key-1' }, other.id);
    assert.equal(elsewhere.status, 409, elsewhere.text);
    assert.equal((await launch({ prompt: 'x', idempotencyKey: '' })).status, 400);
    assert.equal((await h.server.api('GET', `/api/councils/${council.id}/launches`)).body.launches.length, 1);
    assert.equal((await h.server.api('POST', `/api/council-launches/${first.body.id}/abort`)).status, 200);

    const repo = await h.repo();
    const agent = await h.agent();
    const task = (key: string) => h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, projectId: repo.projectId, description: 'Write 42 into answer.txt', idempotencyKey: key } });
    const made = await task('task-key');
    assert.equal(made.status, 201, made.text);
    const repeated = await task('task-key');
    assert.equal(repeated.status, 200, repeated.text);
    assert.equal(repeated.body.id, made.body.id);
    assert.equal((await h.server.api('GET', `/api/work-tasks?agentId=${agent.id}`)).body.tasks.length, 1);
    assert.equal((await h.server.api('POST', `/api/work-tasks/${made.body.id}/cancel`)).status, 200);
  });
});
