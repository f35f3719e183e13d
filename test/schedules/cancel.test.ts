// A schedule that starts an agent session: the execution runs while the session waits on the model
// (the fake Anthropic server hangs), and a cancel stops the session it started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../sessions/harness.js';
import { waitFor } from '../helpers/wait.js';
import { CLOCK_ENV, createSchedule, setClock } from './support.js';

describe('cancel of a running execution', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ anthropic: [{ hang: true }], env: CLOCK_ENV });
    await setClock(h.server, { to: '2026-07-01T00:00:00.000Z' });
  });
  after(() => h.close());

  it('stops the session the execution started, and records the execution cancelled', async () => {
    const agent = await h.agent();
    const s = await createSchedule(h.server, { name: 'ask', intervalSeconds: 3600, action: { type: 'session', agentId: agent.id, prompt: 'Summarise the day.' } });
    assert.equal(s.agentId, agent.id);
    const state = (await h.server.api('GET', '/api/scheduler/system-state')).body;
    const credits = state.credits.find((c: any) => c.agentId === agent.id);
    assert.equal(credits.available, true, JSON.stringify(state));
    assert.equal(typeof credits.balance, 'number');
    const run = await h.server.api('POST', `/api/schedules/${s.id}/trigger`);
    assert.equal(run.status, 201, run.text);
    const running = await waitFor('the execution to start its session', async () => {
      const e = (await h.server.api('GET', `/api/schedule-executions/${run.body.id}`)).body;
      return e.status === 'running' && e.sessionId ? e : undefined;
    }, 30_000);
    const cancelled = await h.server.api('POST', `/api/schedule-executions/${running.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.sessionStopped, true);
    await h.until(running.sessionId, (session) => session.status === 'stopped');
    // The runner's own end does not overwrite the cancel.
    await waitFor('the run to wind down', async () => ((await h.server.api('GET', '/api/scheduler/health')).body.running === 0 ? true : undefined), 30_000);
    assert.equal((await h.server.api('GET', `/api/schedule-executions/${running.id}`)).body.status, 'cancelled');
  });
});
