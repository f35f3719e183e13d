// Schedules acting on the extensions they name: a schedule runs a real workflow (the workflows
// extension), and triggering one launches a real council (the councils extension, against the fake
// Anthropic provider). The extensions meet only through the kernel. An execution lasts until what it
// started ended, and costs what that work's sessions were charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../sessions/harness.js';
import { CLOCK_ENV, createSchedule, setClock, settled } from './support.js';

describe('schedules acting on workflows and councils', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: CLOCK_ENV, anthropic: () => 'VOTE: APPROVE\nREASON: fine.' });
    await setClock(h.server, { to: '2026-02-02T08:00:00.000Z' });
  });
  after(() => h?.close());

  it('runs a workflow on its interval, with the input it names', async () => {
    const workflow = await h.server.api('POST', '/api/workflows', {
      body: {
        name: 'nightly digest',
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'say', type: 'transform', config: { template: 'digest for {{input.team}}' } },
          { id: 'end', type: 'end', config: { output: '{{nodes.say.output}}' } },
        ],
        edges: [{ from: 'start', to: 'say' }, { from: 'say', to: 'end' }],
      },
    });
    assert.equal(workflow.status, 201, workflow.text);
    const schedule = await createSchedule(h.server, { name: 'digest', intervalSeconds: 3600, action: { type: 'workflow', workflowId: workflow.body.id, input: { team: 'blue' } } });
    await setClock(h.server, { advanceMs: 3_600_000 });
    const [execution] = await settled(h.server, schedule.id, 1);
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    const [run] = (await h.server.api('GET', `/api/workflows/${workflow.body.id}/runs`)).body.runs;
    assert.equal(run.status, 'completed', 'the execution ended with its run');
    assert.deepEqual(execution.result, { runId: run.id, status: 'completed', output: 'digest for blue' });
    assert.deepEqual(execution.effect, { kind: 'workflow', id: run.id });
    assert.equal(execution.cost, 0);
  });

  it("records what a workflow run's sessions cost", async () => {
    const agent = await h.agent();
    const workflow = await h.server.api('POST', '/api/workflows', {
      body: {
        name: 'ask someone',
        nodes: [{ id: 'start', type: 'start' }, { id: 'ask', type: 'agent_session', config: { agentId: agent.id, prompt: 'Anything to report?' } }, { id: 'end', type: 'end' }],
        edges: [{ from: 'start', to: 'ask' }, { from: 'ask', to: 'end' }],
      },
    });
    assert.equal(workflow.status, 201, workflow.text);
    const schedule = await createSchedule(h.server, { name: 'ask', intervalSeconds: 86_400, action: { type: 'workflow', workflowId: workflow.body.id } });
    assert.equal((await h.server.api('POST', `/api/schedules/${schedule.id}/trigger`)).status, 201);
    const [execution] = await settled(h.server, schedule.id, 1);
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    const run = (await h.server.api('GET', `/api/workflow-runs/${execution.result.runId}`)).body;
    const session = (await h.server.api('GET', `/api/sessions/${run.nodeRuns.find((n: any) => n.nodeId === 'ask').output.sessionId}`)).body;
    assert.ok(session.cost > 0);
    assert.equal(run.cost, session.cost);
    assert.equal(execution.cost, session.cost, 'the execution costs what its run cost');
  });

  it('launches a council when triggered', async () => {
    const members = [await h.agent(), await h.agent(), await h.agent()];
    const council = await h.server.api('POST', '/api/councils', { body: { name: 'weekly review', members: members.map((m) => m.id), rounds: 0 } });
    assert.equal(council.status, 201, council.text);
    const schedule = await createSchedule(h.server, { name: 'review', intervalSeconds: 86_400, action: { type: 'council', councilId: council.body.id, prompt: 'Ship it?' } });
    assert.equal((await h.server.api('POST', `/api/schedules/${schedule.id}/trigger`)).status, 201);
    const [execution] = await settled(h.server, schedule.id, 1);
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    const launch = (await h.server.api('GET', `/api/council-launches/${execution.result.launchId}`)).body;
    assert.equal(launch.stage, 'completed', 'the execution ended with its launch');
    assert.equal(launch.prompt, 'Ship it?');
    assert.equal(execution.result.stage, 'completed');
    const sessions = [...new Set([...launch.members.map((m: any) => m.sessionId), launch.synthesisSessionId].filter(Boolean))];
    let charged = 0;
    for (const id of sessions) charged += (await h.server.api('GET', `/api/sessions/${id}`)).body.cost;
    assert.ok(charged > 0);
    assert.equal(execution.cost, charged, "the execution costs what the launch's sessions were charged");
    const usage = (await h.server.api('GET', `/api/usage/schedule/${schedule.id}`)).body;
    assert.equal(usage.totals.cost, charged);
    assert.equal(usage.totals.credits, charged / 1_000_000);
  });
});
