// Cron and interval firing on the test clock, time zones and a daylight saving change, and the
// missed-run policies after a downtime (stop the server, restart it on its data, move the clock on).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CLOCK_ENV, createSchedule, executions, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('schedules fire on their times', () => {
  let server: TestServer;
  before(async () => {
    server = await startScheduleServer();
    await setClock(server, { to: '2026-01-05T09:58:00.000Z' });
  });
  after(() => server.cleanup());

  it('an interval schedule runs once per period, and not before', async () => {
    const s = await createSchedule(server, { name: 'every 5 min', intervalSeconds: 300, action: READ_PROJECTS });
    assert.equal(s.nextRunAt, '2026-01-05T10:03:00.000Z');
    await setClock(server, { advanceMs: 299_000 });
    assert.equal((await executions(server, s.id)).length, 0);
    await setClock(server, { advanceMs: 1_000 });
    const [run] = await settled(server, s.id, 1);
    assert.equal(run.status, 'succeeded');
    assert.equal(run.dueAt, '2026-01-05T10:03:00.000Z');
    assert.equal(run.trigger, 'schedule');
    const again = await server.api('GET', `/api/schedules/${s.id}`);
    assert.equal(again.body.nextRunAt, '2026-01-05T10:08:00.000Z');
    await setClock(server, { advanceMs: 300_000 });
    const runs = await settled(server, s.id, 2);
    assert.deepEqual(runs.map((r) => r.dueAt).sort(), ['2026-01-05T10:03:00.000Z', '2026-01-05T10:08:00.000Z']);
  });

  it('a cron schedule runs at its local time in its time zone', async () => {
    const s = await createSchedule(server, { name: 'new york 10:00', cron: '0 10 * * *', timezone: 'America/New_York', action: READ_PROJECTS });
    assert.equal(s.nextRunAt, '2026-01-05T15:00:00.000Z'); // EST is UTC-5
    await setClock(server, { to: '2026-01-05T15:00:00.000Z' });
    const [run] = await settled(server, s.id, 1);
    assert.equal(run.dueAt, '2026-01-05T15:00:00.000Z');
    assert.equal((await server.api('GET', `/api/schedules/${s.id}`)).body.nextRunAt, '2026-01-06T15:00:00.000Z');
  });

  it('a local time the change skips runs at the next one that exists (02:30 on the spring-forward night)', async () => {
    await setClock(server, { to: '2026-03-28T02:00:00.000Z' });
    const s = await createSchedule(server, { name: 'berlin 02:30', cron: '30 2 * * *', timezone: 'Europe/Berlin', action: READ_PROJECTS });
    // 02:00–03:00 does not exist that night in Berlin: the run comes at 03:00 CEST (01:00 UTC).
    assert.equal(s.nextRunAt, '2026-03-29T01:00:00.000Z');
  });

  it('follows a daylight saving change: 09:00 in Berlin is 08:00 UTC before it and 07:00 UTC after', async () => {
    const s = await createSchedule(server, { name: 'berlin 09:00', cron: '0 9 * * *', timezone: 'Europe/Berlin', missedPolicy: 'skip', action: READ_PROJECTS });
    assert.equal(s.nextRunAt, '2026-03-28T08:00:00.000Z');
    await setClock(server, { to: '2026-03-28T08:00:00.000Z' });
    await settled(server, s.id, 1);
    assert.equal((await server.api('GET', `/api/schedules/${s.id}`)).body.nextRunAt, '2026-03-29T07:00:00.000Z');
    await setClock(server, { to: '2026-03-29T07:00:00.000Z' });
    const runs = await settled(server, s.id, 2);
    assert.ok(runs.some((r) => r.dueAt === '2026-03-29T07:00:00.000Z'));
  });

  it('a local time the fall-back change repeats runs once (02:30 on the October night in Berlin)', async () => {
    await setClock(server, { to: '2026-10-24T12:00:00.000Z' });
    const s = await createSchedule(server, { name: 'berlin 02:30 autumn', cron: '30 2 * * *', timezone: 'Europe/Berlin', missedPolicy: 'skip', action: READ_PROJECTS });
    assert.equal(s.nextRunAt, '2026-10-25T00:30:00.000Z', '02:30 CEST, the first time');
    await setClock(server, { to: '2026-10-25T00:30:00.000Z' });
    await settled(server, s.id, 1);
    assert.equal((await server.api('GET', `/api/schedules/${s.id}`)).body.nextRunAt, '2026-10-26T01:30:00.000Z');
    await setClock(server, { to: '2026-10-25T01:30:00.000Z' }); // 02:30 CET, the second time
    assert.equal((await executions(server, s.id)).length, 1, 'the repeated hour runs nothing');
    await setClock(server, { to: '2026-10-26T01:30:00.000Z' });
    const runs = await settled(server, s.id, 2);
    assert.deepEqual(runs.map((r) => r.dueAt).sort(), ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('takes the cron nicknames croner knows (@hourly, @daily, @weekly)', async () => {
    const next: Record<string, string> = { '@hourly': '2026-10-26T02:00:00.000Z', '@daily': '2026-10-27T00:00:00.000Z', '@weekly': '2026-11-01T00:00:00.000Z' };
    for (const [cron, at] of Object.entries(next)) {
      const s = await createSchedule(server, { name: cron, cron, action: READ_PROJECTS });
      assert.equal(s.nextRunAt, at, cron);
    }
    const hourly = (await server.api('GET', '/api/schedules?limit=200')).body.schedules.find((x: any) => x.cron === '@hourly');
    await setClock(server, { to: '2026-10-26T02:00:00.000Z' });
    assert.equal((await settled(server, hourly.id, 1))[0].dueAt, '2026-10-26T02:00:00.000Z');
  });
});

describe('missed runs after a downtime', () => {
  it('skip runs none, run_once runs the latest, run_all runs the latest up to the cap', async () => {
    const env = { ...CLOCK_ENV, ROOST_EXT_SCHEDULES_MISSED_RUN_CAP: '3' };
    let server = await startTestServer({ env });
    const dataDir = server.dataDir;
    try {
      await setClock(server, { to: '2026-02-01T00:30:00.000Z' });
      const hourly = { cron: '0 * * * *', timezone: 'UTC', action: READ_PROJECTS };
      const skip = await createSchedule(server, { name: 'skip', missedPolicy: 'skip', ...hourly });
      const once = await createSchedule(server, { name: 'once', missedPolicy: 'run_once', ...hourly });
      const all = await createSchedule(server, { name: 'all', missedPolicy: 'run_all', ...hourly });
      await server.stop();
      // Down from 00:30 to 05:30: the runs of 01:00 to 05:00 were missed.
      server = await startTestServer({ env, dataDir });
      await setClock(server, { to: '2026-02-01T05:30:00.000Z' });
      assert.equal((await executions(server, skip.id)).length, 0);
      assert.equal((await server.api('GET', `/api/schedules/${skip.id}`)).body.nextRunAt, '2026-02-01T06:00:00.000Z');
      const [single] = await settled(server, once.id, 1);
      assert.equal(single.dueAt, '2026-02-01T05:00:00.000Z');
      assert.equal(single.trigger, 'missed');
      const caught = await settled(server, all.id, 3);
      assert.deepEqual(caught.map((r) => r.dueAt).sort(), ['2026-02-01T03:00:00.000Z', '2026-02-01T04:00:00.000Z', '2026-02-01T05:00:00.000Z']);
      assert.ok(caught.every((r) => r.trigger === 'missed' && r.status === 'succeeded'));
      // Back on time: the 06:00 run is a regular one for each of them.
      await setClock(server, { to: '2026-02-01T06:00:00.000Z' });
      assert.equal((await settled(server, skip.id, 1))[0].trigger, 'schedule');
    } finally {
      await server.cleanup();
    }
  });
});
