// Two instances on one PostgreSQL database (always PostgreSQL, whatever the run stores on): runs
// triggered and answered on either one are run by the engine's leader, each node once, and a node
// answered on the other instance passes its output on; branches that finish at once meet at their join.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { ended, saveWorkflow, startWorkflowServer, trigger, untilRun } from './support.js';

after(() => stopSharedPostgres());

describe('workflows: two instances sharing PostgreSQL', () => {
  let anthropic: FakeAnthropic;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: () => 'an answer' });
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_LEADER_RETRY_MS: '200' };
    a = await startWorkflowServer({ databaseUrl, env });
    b = await startWorkflowServer({ databaseUrl, env });
  });
  after(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await anthropic?.close();
  });

  it('runs each run once whichever instance triggers it or answers its webhook, and the answer reaches later templates', async () => {
    const agent = await a.api('POST', '/api/agents', { body: { name: 'wf-multi', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' } });
    assert.equal(agent.status, 201, agent.text);
    const wf = await saveWorkflow(a, [
      { id: 's', type: 'start' },
      { id: 'ask', type: 'agent_session', config: { agentId: agent.body.id, prompt: 'run {{input.n}}' } },
      { id: 'h', type: 'webhook' },
      { id: 'e', type: 'end', config: { output: '{{nodes.ask.output.text}} {{input.n}} {{nodes.h.output.body.tag}}' } },
    ], [{ from: 's', to: 'ask' }, { from: 'ask', to: 'h' }, { from: 'h', to: 'e' }]);
    const before = anthropic.requests.filter((r) => r.path === '/v1/messages').length;
    const runs = [];
    for (let n = 0; n < 4; n++) runs.push(await trigger(n % 2 ? b : a, wf.id, { n }));
    for (const [n, run] of runs.entries()) {
      // The first sessions of fresh servers start slowly on a busy machine: a patient wait.
      const waiting = await untilRun(b, run.id, (r) => r.nodeRuns.some((x: any) => x.nodeId === 'h' && x.status === 'waiting'), 90_000);
      const hook = waiting.nodeRuns.find((x: any) => x.nodeId === 'h');
      // Answered on either instance: the leader's engine renders the end node with it.
      const res = await (n % 2 ? a : b).api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: { tag: `tag-${n}` } });
      assert.equal(res.status, 202, res.text);
    }
    for (const [n, run] of runs.entries()) {
      const done = await untilRun(a, run.id, ended, 30_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.output, `an answer ${n} tag-${n}`);
      assert.deepEqual(done.nodeRuns.map((x: any) => x.nodeId), ['s', 'ask', 'h', 'e']);
    }
    const asked = anthropic.requests.filter((r) => r.path === '/v1/messages').slice(before);
    assert.equal(asked.length, 4, 'each agent node asked once');
    assert.equal((await a.api('GET', `/api/sessions?agentId=${agent.body.id}&limit=200`)).body.sessions.length, 4);
  });

  it('four branches that finish at once each reach the join, ten runs in a row', async () => {
    const branches = ['b1', 'b2', 'b3', 'b4'];
    const wf = await saveWorkflow(a, [
      { id: 's', type: 'start' }, { id: 'fork', type: 'parallel' },
      ...branches.map((id) => ({ id, type: 'transform', config: { template: `${id} of {{input.n}}` } })),
      { id: 'j', type: 'join' }, { id: 'e', type: 'end', config: { output: '{{nodes.j.output}}' } },
    ], [
      { from: 's', to: 'fork' }, ...branches.map((id) => ({ from: 'fork', to: id })), ...branches.map((id) => ({ from: id, to: 'j' })), { from: 'j', to: 'e' },
    ]);
    const runs = [];
    for (let n = 0; n < 10; n++) runs.push(await trigger(n % 2 ? b : a, wf.id, { n }));
    for (const [n, run] of runs.entries()) {
      const done = await untilRun(a, run.id, ended, 30_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.output, Object.fromEntries(branches.map((id) => [id, `${id} of ${n}`])));
      assert.equal(done.nodeRuns.filter((x: any) => x.nodeId === 'j').length, 1, 'one join');
      assert.deepEqual(done.nodeRuns.map((x: any) => x.seq), Array.from({ length: 8 }, (_, i) => i + 1), 'node runs numbered once each');
    }
  });
});
