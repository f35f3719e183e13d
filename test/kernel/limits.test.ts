// An extension cannot exhaust the machine (the server runs as root here, which RLIMIT_NPROC exempts):
// a fork bomb stops at its process limit, a folder over its disk budget stops it and its requests get
// 507 until the folder is back under it, and what it logs past its rate limit is dropped and counted.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';
import { isAlive } from '../helpers/sandbox-pids.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';

const PROCESS_LIMIT = 100;
/** The fixture's disk_mb. */
const BUDGET_BYTES = 4 * 1024 * 1024;

/** How many processes are below `root` now. */
function descendantCount(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let count = 0;
  const queue = [root];
  while (queue.length > 0) for (const child of children.get(queue.shift()!) ?? []) (count++, queue.push(child));
  return count;
}

/** Loads the fixture into a server whose extensions may have PROCESS_LIMIT processes. */
async function greedyServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer({ env: { ROOST_SANDBOX_PROCESSES: String(PROCESS_LIMIT), ROOST_CRASH_BUDGET: '20', ...env } });
  const loaded = await server.api('POST', '/api/plugins/load', { body: { path: join(repoRoot, 'test/fixtures/limits/greedy') } });
  assert.equal(loaded.status, 201, loaded.text);
  return server;
}

/** The server stops the extension and says why: waits for that lastError, however it restarts after. */
function stoppedFor(server: TestServer, pattern: RegExp): Promise<any> {
  return waitFor(`greedy's lastError to match ${pattern}`, async () => {
    const info = await pluginInfo(server, 'greedy');
    return pattern.test(info?.lastError ?? '') ? info : undefined;
  }, 20_000);
}

/** Forks three times the limit; answers the most processes seen below the sandbox meanwhile, once all are gone. */
async function forkBomb(server: TestServer): Promise<number> {
  assert.equal((await server.api('GET', '/api/greedy/ping')).status, 200);
  const { pid } = await pluginInfo(server, 'greedy');
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, descendantCount(pid))), 5);
  await server.api('POST', '/api/greedy/fork', { body: { count: 3 * PROCESS_LIMIT } });
  const info = await stoppedFor(server, new RegExp(`process limit ${PROCESS_LIMIT} exceeded`));
  clearInterval(sampler);
  assert.match(info.lastError, /stopped with every process of its sandbox/);
  await waitFor('the sandbox to be gone', async () => (isAlive(pid) ? undefined : true));
  // That it reached the limit is what the reason above says (the guard says so only past it); `most`, sampled
  // from outside every few milliseconds, bounds it from above and can miss the peak on a busy machine.
  assert.ok(most > 0, 'the fork bomb got going');
  // The server stays healthy, and the extension comes back.
  assert.equal((await server.api('GET', '/health/live')).status, 200);
  assert.equal((await server.api('GET', '/api/greedy/ping')).status, 200);
  return most;
}

function diskUsage(dir: string): number {
  const stat = statSync(dir);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(dir).reduce((sum, entry) => sum + diskUsage(join(dir, entry)), stat.blocks * 512);
}

describe('an extension cannot exhaust the machine', { timeout: 180_000 }, () => {
  let server: TestServer;
  let ownDir: string;
  const ping = () => server.api('GET', '/api/greedy/ping');

  before(async () => {
    server = await greedyServer();
    ownDir = join(server.dataDir, 'extensions', 'greedy');
  });
  after(() => server.cleanup());

  it('a fork bomb is stopped at the process limit, with every process of its sandbox, and the extension comes back', async (t) => {
    if (/kept by counting/.test(server.log())) t.diagnostic('no pids cgroup on this machine: the limit is kept by counting');
    const most = await forkBomb(server);
    // A pids cgroup refuses the fork past the limit: exact. Counting may let a few more start between two looks.
    const limit = /kept by counting/.test(server.log()) ? 3 * PROCESS_LIMIT : PROCESS_LIMIT;
    assert.ok(most <= limit, `${most} processes ran below the sandbox (limit ${PROCESS_LIMIT})`);
  });

  it('an extension writing past its disk budget is stopped, answers 507 until its folder is back under it', async () => {
    const filled = await server.api('POST', '/api/greedy/fill', { body: {} });
    assert.equal(filled.status, 503, filled.text);
    await stoppedFor(server, /disk budget of 4 MiB exceeded/);
    // It wrote without end: stopped long before the disk filled.
    assert.ok(diskUsage(ownDir) < 64 * BUDGET_BYTES, `its folder holds ${diskUsage(ownDir)} bytes`);
    const refused = await waitFor('a 507', async () => {
      const res = await ping();
      return res.status === 507 ? res : undefined;
    });
    assert.equal(refused.body.code, 'STORAGE_FULL');
    const metrics = (await server.api('GET', '/metrics')).text;
    assert.match(metrics, new RegExp(`^roost_extension_disk_budget_bytes\\{extension="greedy"\\} ${BUDGET_BYTES}$`, 'm'));
    assert.ok(Number(/^roost_extension_disk_bytes\{extension="greedy"\} (\d+)$/m.exec(metrics)?.[1]) > BUDGET_BYTES, 'the usage that stopped it is in /metrics');
    assert.match(refused.body.error, /greedy: disk budget of 4 MiB exceeded: [\d.]+ MiB in .*extensions\/greedy; it starts again once/);
    assert.match((await pluginInfo(server, 'greedy')).lastError, /disk budget of 4 MiB exceeded/);

    await rm(join(ownDir, 'fill'), { recursive: true, force: true });
    assert.equal((await ping()).status, 200);
  });

  it('no file of an extension without `filesystem` grows past its disk budget', async () => {
    await server.api('POST', '/api/greedy/grow', { body: {} });
    await stoppedFor(server, /disk budget of 4 MiB exceeded/);
    assert.ok(statSync(join(ownDir, 'big')).size <= BUDGET_BYTES, `the file grew to ${statSync(join(ownDir, 'big')).size} bytes`);
    await rm(join(ownDir, 'big'), { force: true });
    assert.equal((await ping()).status, 200);
  });

  it('logs at most its rate: the rest is dropped, counted in /metrics and summed up in the log; a long line is cut', async () => {
    const long = await server.api('POST', '/api/greedy/shout', { body: { count: 0, long: 100_000 } });
    assert.equal(long.status, 200, long.text);
    const [longLine] = await waitForLog(server, /L{100}.*\n/);
    assert.ok(longLine.length < 8_300, `a line of ${longLine.length} characters was logged`);
    assert.match(longLine, /more characters cut\)/);

    // Its stderr, then `log` messages (what an extension on the TypeScript frame sends for console.error).
    const lines = 20_000;
    let droppedBefore = 0;
    for (const [via, logged] of [['stderr', /\[greedy\] greedy line \d+/g], ['log', /\[greedy\] greedy message \d+/g]] as const) {
      const shouted = await server.api('POST', '/api/greedy/shout', { body: { count: lines, via } });
      assert.equal(shouted.status, 200, shouted.text);
      const seen = await waitFor(`the lines dropped of ${via} in /metrics`, async () => {
        const metrics = await server.api('GET', '/metrics');
        const dropped = Number(/^roost_extension_log_lines_dropped_total\{extension="greedy"\} (\d+)$/m.exec(metrics.text)?.[1] ?? 0) - droppedBefore;
        const written = server.log().match(logged)?.length ?? 0;
        return dropped + written >= lines ? { dropped, written } : undefined;
      });
      assert.ok(seen.written < lines / 4, `${seen.written} of ${lines} lines sent by ${via} were logged`);
      droppedBefore += seen.dropped;
    }
    await waitForLog(server, /\[greedy\] dropped \d+ log lines \(over 200 lines\/s/);
  });
});

describe('the process limit without a pids cgroup (ROOST_PIDS_CGROUP=off)', { timeout: 120_000 }, () => {
  let server: TestServer;
  before(async () => (server = await greedyServer({ ROOST_PIDS_CGROUP: 'off' })));
  after(() => server.cleanup());

  it('counts the sandbox\'s processes and stops a fork bomb all the same', async () => {
    await forkBomb(server);
    assert.match(server.log(), /process limit is kept by counting \(ROOST_PIDS_CGROUP=off\)/);
  });
});
