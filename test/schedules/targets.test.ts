// Schedules acting on the extensions they name: a schedule runs a real workflow (the workflows
// extension), and triggering one launches a real council (the councils extension, against the fake
// Anthropic provider). The extensions meet only through the kernel.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
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
    const run = await waitFor('the workflow run to complete', async () => {
      const runs = (await h.server.api('GET', `/api/workflows/${workflow.body.id}/runs`)).body.runs;
      return runs[0]?.status === 'completed' ? runs[0] : undefined;
    });
    assert.equal(run.output, 'digest for blue');
  });

  it('launches a council when triggered', async () => {
    const members = [await h.agent(), await h.agent(), await h.agent()];
    const council = await h.server.api('POST', '/api/councils', { body: { name: 'weekly review', members: members.map((m) => m.id), rounds: 0 } });
    assert.equal(council.status, 201, council.text);
    const schedule = await createSchedule(h.server, { name: 'review', intervalSeconds: 86_400, action: { type: 'council', councilId: council.body.id, prompt: 'Ship it?' } });
    assert.equal((await h.server.api('POST', `/api/schedules/${schedule.id}/trigger`)).status, 201);
    const [execution] = await settled(h.server, schedule.id, 1);
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    const launch = await waitFor('the council launch to complete', async () => {
      const launches = (await h.server.api('GET', `/api/council-launches?councilId=${council.body.id}`)).body.launches;
      return launches[0]?.stage === 'completed' ? launches[0] : undefined;
    }, 60_000);
    assert.equal(launch.prompt, 'Ship it?');
  });
});
