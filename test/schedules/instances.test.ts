// Two instances on one PostgreSQL database: one scheduler leads (the kernel's advisory-lock leader),
// every due run is recorded once whatever the clocks of both say, and when the leader is killed the
// other takes over. A leader that loses the lead while alive finishes what it runs (its heartbeat
// shows it alive); a cancel answered on the other instance reaches it; a dead one's runs are interrupted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { untilNode } from '../workflows/support.js';
import { CLOCK_ENV, createSchedule, READ_PROJECTS, setClock, settled } from './support.js';

after(() => stopSharedPostgres());

describe('the scheduler across instances sharing PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ...CLOCK_ENV, ROOST_LEADER_RETRY_MS: '200' };
    a = await startTestServer({ databaseUrl, env });
    b = await startTestServer({ databaseUrl, env });
  });
  after(() => Promise.all([a?.cleanup(), b?.cleanup()]));

  const status = async (s: TestServer) => (await s.api('GET', '/api/scheduler/health')).body.status as string;

  it('one leads, each due run is recorded once, and the other takes over when the leader dies', async () => {
    const [leader, standby] = await waitFor('one leader and one standby', async () => {
      const [sa, sb] = await Promise.all([status(a), status(b)]);
      if (sa === 'leading' && sb === 'standby') return [a, b];
      if (sb === 'leading' && sa === 'standby') return [b, a];
      return undefined;
    }, 30_000);
    await Promise.all([setClock(a, { to: '2026-09-01T00:00:00.000Z' }), setClock(b, { to: '2026-09-01T00:00:00.000Z' })]);
    const schedules = [];
    for (let i = 0; i < 5; i++) schedules.push(await createSchedule(i % 2 ? a : b, { name: `s${i}`, intervalSeconds: 300, action: READ_PROJECTS }));
    await Promise.all([setClock(a, { advanceMs: 300_000 }), setClock(b, { advanceMs: 300_000 })]);
    for (const s of schedules) assert.equal((await settled(standby, s.id, 1))[0].dueAt, '2026-09-01T00:05:00.000Z');

    leader.process.kill('SIGKILL');
    await leader.process.catch(() => undefined);
    await waitFor('the standby to lead', async () => ((await status(standby)) === 'leading' ? true : undefined), 30_000);
    await setClock(standby, { to: '2026-09-01T00:10:00.000Z' });
    for (const s of schedules) {
      const runs = await settled(standby, s.id, 2);
      assert.deepEqual(runs.map((r) => r.dueAt).sort(), ['2026-09-01T00:05:00.000Z', '2026-09-01T00:10:00.000Z']);
    }
  });
});

describe('an old leader still alive keeps running what it started', () => {
  let databaseUrl: string;
  let servers: TestServer[];
  before(async () => {
    databaseUrl = await (await sharedPostgres()).createDatabase();
    const env = { ...CLOCK_ENV, ROOST_LEADER_RETRY_MS: '200', ROOST_EXT_SCHEDULES_INSTANCE_EXPIRY_SECONDS: '6' };
    servers = [await startTestServer({ databaseUrl, env }), await startTestServer({ databaseUrl, env })];
  });
  after(() => Promise.all(servers.map((s) => s.cleanup())));

  /**
   * The one instance that leads, once the same one has led in looks SETTLED_MS apart. Each look ticks
   * both schedulers first: a status is what the scheduler's last tick asked its kernel, and one from
   * before a drop of the locks would name an instance that may not win them back.
   */
  const SETTLED_MS = 500;
  const leaderOf = () => {
    let seen: { server: TestServer; since: number } | undefined;
    return waitFor('one settled scheduler leader', async () => {
      const states = await Promise.all(servers.map(async (s) => {
        await setClock(s, { advanceMs: 0 });
        return (await s.api('GET', '/api/scheduler/health')).body.status;
      }));
      const leading = servers.filter((_, i) => states[i] === 'leading');
      if (leading.length !== 1) return (seen = undefined);
      if (seen?.server !== leading[0]) seen = { server: leading[0]!, since: Date.now() };
      return Date.now() - seen.since >= SETTLED_MS ? seen.server : undefined;
    }, 30_000);
  };

  /** Ends the database connections holding the leaders' advisory locks, as a network fault would. */
  async function dropLeadership(): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
    } finally {
      await client.end();
    }
  }

  it('is not interrupted by the new leader; a cancel on the other instance stops it; a dead one is interrupted', async () => {
    const old = await leaderOf();
    const other = servers.find((s) => s !== old)!;
    await setClock(old, { to: '2026-10-01T00:00:00.000Z' });
    const workflow = await old.api('POST', '/api/workflows', {
      body: { name: 'waits', nodes: [{ id: 's', type: 'start' }, { id: 'h', type: 'webhook' }, { id: 'e', type: 'end' }], edges: [{ from: 's', to: 'h' }, { from: 'h', to: 'e' }] },
    });
    assert.equal(workflow.status, 201, workflow.text);
    const action = { type: 'workflow', workflowId: workflow.body.id };
    const [kept, cancelled, orphaned] = [
      await createSchedule(old, { name: 'kept', intervalSeconds: 86_400, action }),
      await createSchedule(old, { name: 'cancelled', intervalSeconds: 86_400, action }),
      await createSchedule(old, { name: 'orphaned', intervalSeconds: 86_400, action }),
    ];
    const runningOn = async (server: TestServer, scheduleId: string) => {
      const e = (await server.api('POST', `/api/schedules/${scheduleId}/trigger`)).body;
      return waitFor('the execution to run', async () => {
        const now = (await server.api('GET', `/api/schedule-executions/${e.id}`)).body;
        return now.status === 'running' && now.effect ? now : undefined;
      }, 30_000);
    };
    const first = await runningOn(old, kept.id);
    const second = await runningOn(old, cancelled.id);

    let leader = old;
    for (let i = 0; i < 20 && leader === old; i++) {
      await dropLeadership();
      leader = await leaderOf(); // each look ticks the new leader too: it looks for orphans
    }
    assert.equal(leader, other, 'the other instance leads now');
    assert.equal((await other.api('GET', `/api/schedule-executions/${first.id}`)).body.status, 'running', 'alive: not interrupted');

    const hook = await untilNode(other, first.effect.id, 'h', (n) => n.status === 'waiting');
    assert.equal((await other.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: {} })).status, 202);
    const done = await waitFor('the old leader to finish it', async () => {
      const e = (await other.api('GET', `/api/schedule-executions/${first.id}`)).body;
      return e.status === 'succeeded' ? e : undefined;
    }, 30_000);
    assert.equal(done.result.status, 'completed');

    const stopped = await other.api('POST', `/api/schedule-executions/${second.id}/cancel`);
    assert.equal(stopped.status, 200, stopped.text);
    await waitFor('its workflow run to be cancelled', async () => ((await other.api('GET', `/api/workflow-runs/${second.effect.id}`)).body.status === 'cancelled' ? true : undefined), 30_000);
    await waitFor('the old leader to let it go', async () => ((await old.api('GET', '/api/scheduler/health')).body.running === 0 ? true : undefined), 30_000);
    assert.equal((await other.api('GET', `/api/schedule-executions/${second.id}`)).body.status, 'cancelled');
    assert.equal((await other.api('GET', '/api/scheduler/health')).body.failures.interruptedSinceStart, 0);

    // An execution of the new leader's, then the new leader dies: the survivor interrupts it once its heartbeat is old.
    const third = await runningOn(other, orphaned.id);
    other.process.kill('SIGKILL');
    await other.process.catch(() => undefined);
    let last: unknown;
    const interrupted = await waitFor('the dead leader\'s execution to be interrupted', async () => {
      await setClock(old, { advanceMs: 0 }).catch(() => undefined);
      const e = (await old.api('GET', `/api/schedule-executions/${third.id}`)).body;
      last = { execution: e, health: (await old.api('GET', '/api/scheduler/health')).body };
      return e.status === 'failed' ? e : undefined;
    }, 90_000).catch((err: Error) => {
      throw new Error(`${err.message}; last: ${JSON.stringify(last)}`);
    });
    assert.equal(interrupted.errorCode, 'INTERRUPTED');
  });
});
