// Durable executions: a server that dies (kill -9) or stops while an execution runs leaves it
// `running`; the next start finds it and marks it failed, INTERRUPTED, without running it again. The
// scheduler starts with the server by itself (its wake-on-start flag), before anyone calls it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { MODEL } from '../sessions/harness.js';
import { CLOCK_ENV, createSchedule, executions, setClock } from './support.js';

describe('executions survive a crash of the server', () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ hang: true }] });
    env = { ...CLOCK_ENV, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url };
    server = await startTestServer({ env });
    await setClock(server, { to: '2026-08-01T00:00:00.000Z' });
  });
  after(async () => {
    await server.cleanup();
    await anthropic.close();
  });

  async function runningExecution(scheduleId: string): Promise<any> {
    const run = await server.api('POST', `/api/schedules/${scheduleId}/trigger`);
    assert.equal(run.status, 201, run.text);
    return waitFor('the execution to run its session', async () => {
      const e = (await server.api('GET', `/api/schedule-executions/${run.body.id}`)).body;
      return e.status === 'running' && e.sessionId ? e : undefined;
    }, 30_000);
  }

  async function restart(kill: boolean): Promise<void> {
    if (kill) {
      server.process.kill('SIGKILL');
      await server.process.catch(() => undefined);
    } else {
      await server.stop();
    }
    server = await startTestServer({ env, dataDir: server.dataDir });
  }

  for (const [how, kill] of [['kill -9', true], ['a graceful stop', false]] as const) {
    it(`after ${how}, the interrupted execution is failed INTERRUPTED and not run again`, async () => {
      const agent = (await server.api('POST', '/api/agents', { body: { name: `agent ${how}`, model: MODEL } })).body;
      const s = await createSchedule(server, { name: `durable ${how}`, intervalSeconds: 3600, action: { type: 'session', agentId: agent.id, prompt: 'Work.' } });
      const running = await runningExecution(s.id);
      await restart(kill);
      const plugins = (await server.api('GET', '/api/plugins')).body.plugins;
      assert.ok(['starting', 'running'].includes(plugins.find((p: any) => p.name === 'schedules').state), `started with the server, unasked: ${JSON.stringify(plugins.find((p: any) => p.name === 'schedules'))}`);
      const failed = await waitFor('the interrupted execution to be marked', async () => {
        const e = (await server.api('GET', `/api/schedule-executions/${running.id}`)).body;
        return e.status === 'failed' ? e : undefined;
      }, 30_000);
      assert.equal(failed.errorCode, 'INTERRUPTED');
      assert.equal((await executions(server, s.id)).length, 1, 'not retried');
      const health = (await server.api('GET', '/api/scheduler/health')).body;
      assert.ok(health.failures.interruptedSinceStart >= 1);
      assert.equal((await server.api('GET', `/api/schedules/${s.id}`)).body.consecutiveFailures, 0, 'an interruption is not a failure of the schedule');
      await server.api('POST', `/api/sessions/${running.sessionId}/stop`);
    });
  }
});
