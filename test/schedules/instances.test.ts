// Two instances on one PostgreSQL database: one scheduler leads (the kernel's advisory-lock leader),
// every due run is recorded once whatever the clocks of both say, and when the leader is killed the
// other takes over.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
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
