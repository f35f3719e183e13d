// An extension that cannot start because of its environment is started again, without spending its
// crash budget, until it can; then it serves by itself. Here the fault is a full disk (the data dir is a
// small tmpfs, mounted here: tests run as root): a lazy extension's first start cannot create its SQLite
// database. The supervisor's classification and backoff are checked on their own too.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { environmentalFault, EXIT_ENVIRONMENTAL } from '../../protocol/faults.js';
import { toRoostError } from '../../protocol/errors.js';
import { crashRestartMs, environmentalRetryMs, exitFault, startFault } from '../../kernel/host/supervisor.js';
import { pluginInfo } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fillDisk, mountSmallDisk, unmountSmallDisk } from '../helpers/small-disk.js';
import { waitFor } from '../helpers/wait.js';

describe('the supervisor tells environmental faults from bugs', () => {
  it('classifies a refused connection, a PostgreSQL shutdown and a full disk as environmental, anything else as a bug', async () => {
    // A real refused connection: a port nobody listens on (one just closed).
    const refused = await new Promise<Error>((resolve) => connect(1, '127.0.0.1').once('error', resolve));
    assert.equal(environmentalFault(refused), 'database');
    assert.equal(environmentalFault(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), 'database');
    assert.equal(environmentalFault(Object.assign(new Error('the database system is starting up'), { code: '57P03' })), 'database');
    assert.equal(environmentalFault(Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'SQLITE_FULL' })), 'disk');
    assert.equal(environmentalFault(new Error('write failed', { cause: Object.assign(new Error('no space'), { code: 'ENOSPC' }) })), 'disk');
    assert.equal(environmentalFault(new TypeError("Cannot read properties of undefined (reading 'id')")), undefined);
    // A socket error behind another service's failure is not the database's.
    assert.equal(environmentalFault(new TypeError('fetch failed', { cause: refused })), undefined);

    assert.deepEqual([startFault(refused).environmental, startFault(new Error('bad manifest')).environmental], [true, false]);
    const envExit = exitFault({ code: EXIT_ENVIRONMENTAL, signal: null }, 'environmental fault: the disk is full (SQLITE_FULL)');
    assert.deepEqual(envExit, { environmental: true, reason: 'the disk is full (SQLITE_FULL)' });
    assert.equal(exitFault({ code: 1, signal: null }, 'anything').environmental, false);
    assert.equal(exitFault({ code: null, signal: 'SIGKILL' }, undefined).environmental, false);

    const unreachable = toRoostError(refused);
    assert.deepEqual([unreachable.status, unreachable.code, (unreachable.details as { retryAfter: number }).retryAfter], [503, 'DATABASE_UNAVAILABLE', 2]);
  });

  it('retries an environmental fault from 0.5 s, doubling to 5 s at most, for as long as it lasts', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 100].map(environmentalRetryMs), [500, 1000, 2000, 4000, 5000, 5000, 5000]);
    assert.deepEqual([1, 2, 3, 6].map(crashRestartMs), [200, 400, 800, 5000]);
  });
});

describe('an extension that cannot start because the disk is full', { timeout: 180_000 }, () => {
  let mount: string | undefined;
  let skip: string | false = false;
  let server: TestServer | undefined;
  before(async () => {
    if (process.env.ROOST_TEST_POSTGRES === '1') return void (skip = 'its database would be on PostgreSQL, not on the full disk (test/scale/postgres-restart.test.ts covers PostgreSQL)');
    const mounted = await mountSmallDisk('24m');
    if ('skip' in mounted) return void (skip = mounted.skip);
    mount = mounted.dir;
    // A crash budget of 0: one crash and it would be failed for good.
    server = await startTestServer({ dataDir: mount, env: { ROOST_CRASH_BUDGET: '0' } });
  });
  after(async () => {
    await server?.stop();
    if (mount) await unmountSmallDisk(mount);
  });

  it('answers 503 with Retry-After while it waits, spends no crash budget, and serves once space returns', async (t) => {
    if (skip) return t.skip(skip);
    const filler = join(mount!, 'filler');
    await fillDisk(filler);

    const refused = await server!.api('GET', '/api/exam/runs');
    assert.equal(refused.status, 503, refused.text);
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    // It keeps trying, and is not failed (the budget of 0 would have been spent by a single crash). The
    // one that cannot create its database may be exams or an extension exams requires (started first).
    const waiting = await waitFor('a second failed try', async () => {
      const ready = await server!.api('GET', '/health/ready');
      const reason: string | undefined = ready.body.reasons?.find((r: string) => /^extension [\w-]+ cannot run: the disk is full.*tried [2-9]/.test(r));
      return reason && /^extension ([\w-]+) /.exec(reason)![1];
    }, 30_000);
    assert.ok(['exams', 'agents', 'projects', 'sessions'].includes(waiting), waiting);
    assert.equal((await pluginInfo(server!, waiting)).state, 'crashed');

    await rm(filler);
    await waitFor('exams to serve again', async () => ((await server!.api('GET', '/api/exam/runs')).status === 200 ? true : undefined), 30_000);
    await waitFor('the server to be ready again', async () => ((await server!.api('GET', '/health/ready')).status === 200 ? true : undefined), 30_000);
    assert.equal((await pluginInfo(server!, 'exams')).state, 'running');
  });
});
