// What a server costs before anyone uses it, with every in-tree extension installed: the shipped
// `roost serve` from spawn to ready; the first request to a lazy extension that is not running yet
// (its process start included); idle memory (PSS summed over the server and every child) with nothing
// used yet and with every extension started; the way back after kill -9 in the middle of a write load;
// and, side by side, what loading one extension's entry costs as its bundle (dist/bundles) and as the
// plain tsc output it replaces.
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { cpuMs, processTree, pssMiB } from './lib/proc.js';
import { reporter } from './lib/report.js';
import { startCliServer, startEveryExtension, type CliServer } from './lib/serve-cli.js';
import { median } from './lib/stats.js';

const report = reporter('startup');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STARTS = 5;
const IDLE_SETTLE_MS = 3_000;
const LOAD_RUNS = 5;
const CRASHES = 3;
/** Writers POSTing projects back to back while the server is killed. */
const WRITERS = 8;
/** The lazy extension whose first request is timed, and the route it is timed on. */
const COLD = { extension: 'agents', route: '/api/agents' };

await startAndIdle();
await crashRelaunch();
await entryLoad();

async function startAndIdle(): Promise<void> {
  const starts: number[] = [];
  const firstRequests: number[] = [];
  let probe = '';
  let installed = 0;
  for (let i = 0; i < STARTS; i++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-start-'));
    const server = await startCliServer(dataDir);
    try {
      starts.push(server.startToReadyMs);
      probe = server.readyProbe;
      installed = (await server.plugins()).length;
      const last = i === STARTS - 1;
      if (last) await idleMemory(server, 'installed', 'every extension installed, none used yet', '<= 150 MB');
      firstRequests.push(await coldRequest(server));
      if (last) await everyExtensionStarted(server);
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  report('roost serve start to ready, every in-tree extension installed (fresh data dir), median', median(starts), 'ms', '<= 1000 ms', {
    runs: starts.map(Math.round), readyProbe: probe, extensionsInstalled: installed,
    ...(probe === '/api/health' ? { note: 'this server has no /health/ready: ready = GET /api/health says ok' } : {}),
  });
  report(`first request to a cold lazy extension (GET ${COLD.route}, ${COLD.extension} not running), median`, median(firstRequests), 'ms', '<= 300 ms', { runs: firstRequests.map(Math.round) });
}

/** GET on a lazy extension's route right after start: the answer waits for its process to start. */
async function coldRequest(server: CliServer): Promise<number> {
  const before = (await server.plugins()).find((p) => p.name === COLD.extension);
  if (before?.state !== 'stopped') throw new Error(`${COLD.extension} should not be running yet, it is ${before?.state}`);
  const t0 = performance.now();
  const res = await server.api('GET', COLD.route);
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${COLD.route} answered ${res.status}`);
  return ms;
}

async function idleMemory(server: CliServer, what: string, description: string, target: string): Promise<void> {
  await sleep(IDLE_SETTLE_MS);
  const pids = processTree(server.pid);
  const pss = pids.map(pssMiB);
  const sum = pss.reduce((a, b) => a + b, 0);
  report(`idle memory (sum of PSS), ${description}`, sum, 'MB', target, { what, processes: pids.length, serverMB: pss[0], childrenMB: sum - pss[0]! });
}

async function everyExtensionStarted(server: CliServer): Promise<void> {
  const { running, notRunning } = await startEveryExtension(server);
  // CPU each extension process used from its spawn through its first answer (bundled entries).
  const cpu = Object.fromEntries(running.map((p) => [p.name, cpuMs(p.pid!)]));
  report('extension CPU from spawn to first answer (bundled), median over extensions', median(Object.values(cpu)), 'ms', 'informational', cpu);
  await idleMemory(server, 'started', `every extension started (${running.length})${notRunning.length > 0 ? `; not running: ${notRunning.join(', ')}` : ''}`, '<= 400 MB');
}

/**
 * kill -9 of the server while writers POST projects, then a relaunch on the same data dir: from the
 * relaunch's spawn to the first GET /api/projects answered 200 (the projects extension starts again
 * on that request).
 */
async function crashRelaunch(): Promise<void> {
  const backs: number[] = [];
  const readies: number[] = [];
  for (let i = 0; i < CRASHES; i++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-crash-'));
    const workDir = await mkdtemp(join(tmpdir(), 'roost-bench-crash-work-'));
    const env = { ROOST_ALLOWED_ROOTS: workDir };
    try {
      const first = await startCliServer(dataDir, env);
      let writing = true;
      let acknowledged = 0;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let n = 0; writing; n++) {
          const res = await first.api('POST', '/api/projects', { name: `crash-${w}-${n}`, workingDir: workDir }).catch(() => undefined);
          if (res?.status === 201) acknowledged++;
        }
      });
      while (acknowledged < 200) await sleep(10);
      process.kill(first.pid, 'SIGKILL');
      await first.stop();
      writing = false;
      await Promise.all(writers);
      const launched = performance.now();
      const second = await startCliServer(dataDir, env);
      try {
        const res = await second.api('GET', '/api/projects?limit=1');
        if (res.status !== 200) throw new Error(`GET /api/projects after the relaunch answered ${res.status}`);
        backs.push(performance.now() - launched);
        readies.push(second.startToReadyMs);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    }
  }
  report('relaunch after kill -9 mid-write-load: spawn to the first GET /api/projects answered 200, median', median(backs), 'ms', '<= 2000 ms', {
    runs: backs.map(Math.round), spawnToReadyMs: readies.map(Math.round), writers: WRITERS,
  });
}

/** Every bundled process entry (dist/bundles/extensions/…: `<name>.cjs`, or an ES module `<name>.js`; chunks and code aside). */
function entries(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'chunks') walk(path);
      } else if (name.endsWith('.cjs') || (name.endsWith('.js') && !name.endsWith('.code.js'))) out.push(path);
    }
  };
  walk(join(root, 'dist', 'bundles', 'extensions'));
  return out.sort();
}

/**
 * Spawn to exit of `node <entry>` with stdin closed: the process loads its modules, sees the end of
 * its input and leaves — the part of an extension's start that bundling changes. Alternating runs.
 */
async function entryLoad(): Promise<void> {
  const bundles = entries();
  if (bundles.length === 0) throw new Error('no bundles under dist/bundles: run npm run build');
  const time = async (...args: string[]) => {
    const t0 = performance.now();
    await execa(process.execPath, args, { stdin: 'ignore', reject: false });
    return performance.now() - t0;
  };
  const base: number[] = [];
  for (let i = 0; i < LOAD_RUNS; i++) base.push(await time('-e', '0'));
  const per: Record<string, { bundle: number; tsc: number }> = {};
  for (const bundle of bundles) {
    const compiled = join(root, 'dist', relative(join(root, 'dist', 'bundles'), bundle)).replace(/\.cjs$/, '.js');
    const b: number[] = [];
    const t: number[] = [];
    for (let i = 0; i < LOAD_RUNS; i++) {
      b.push(await time(bundle));
      t.push(await time(compiled));
    }
    per[relative(join(root, 'dist', 'bundles'), bundle)] = { bundle: median(b), tsc: median(t) };
  }
  const rows = Object.values(per);
  const sum = (pick: (r: { bundle: number; tsc: number }) => number) => rows.reduce((a, r) => a + pick(r), 0);
  report('process entry load, spawn to exit, bundle / tsc output (sum over entries)', sum((r) => r.bundle) / sum((r) => r.tsc), 'x', 'informational', {
    entries: rows.length,
    bundleMs: sum((r) => r.bundle),
    tscMs: sum((r) => r.tsc),
    nodeAloneMs: median(base),
    perEntryMs: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, `${Math.round(v.bundle)} / ${Math.round(v.tsc)}`])),
  });
}
