// A write and its fan-out, on the shipped `roost serve`: POST /api/agents with 10 connections, each
// sending its next create as soon as the previous answer is read. Every create is one request to the
// agents extension, then an agent.<id> event the kernel hands to each extension subscribed to it (credits
// opens the wallet, feed records it; memory filters on deletions and is not woken). The figures: writes
// per second, and the server's CPU per write summed over the whole process tree, split per process, so
// the cost of the fan-out shows beside the cost of the write itself.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs } from './lib/proc.js';
import { reporter } from './lib/report.js';
import { startCliServer, type CliServer } from './lib/serve-cli.js';

const report = reporter('writes');
const CONNECTIONS = 10;
const WARMUP_MS = Number(process.env.ROOST_BENCH_WARMUP_MS ?? 2_000);
const MEASURE_MS = 4 * Number(process.env.ROOST_BENCH_ROUND_MS ?? 1_500);

const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-writes-'));
const server = await startCliServer(dataDir);
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
let sequence = 0;
try {
  await drive(server, WARMUP_MS);
  // The extensions the writes woke, by pid (once none is still starting): their CPU is read for their
  // whole sandbox's process tree.
  let plugins = await server.plugins();
  for (const deadline = performance.now() + 30_000; plugins.some((p) => p.state === 'starting') && performance.now() < deadline; plugins = await server.plugins()) await sleep(100);
  const woken = plugins.filter((p) => p.state === 'running' && p.pid !== null);
  const before = cpuSplit(server, woken);
  const started = performance.now();
  const writes = await drive(server, MEASURE_MS);
  const seconds = (performance.now() - started) / 1000;
  const after = cpuSplit(server, woken);
  const perWriteUs = Object.fromEntries(Object.keys(after).map((name) => [name, ((after[name]! - (before[name] ?? 0)) * 1000) / writes]));
  const total = Object.values(perWriteUs).reduce((sum, us) => sum + us, 0);
  const fanOut = Object.entries(perWriteUs).filter(([name, us]) => name !== 'kernel' && name !== 'agents' && us >= 1);
  report(`POST /api/agents, ${CONNECTIONS} connections: writes per second`, writes / seconds, 'ops/s', 'informational (side by side: >= 1.0x corvid-agent)', { writes });
  report('POST /api/agents: server CPU per write, whole process tree', total, 'us', 'informational (side by side: <= 1.5x corvid-agent)', roundedSplit(perWriteUs));
  report('POST /api/agents: CPU per write in the extensions its event wakes (fan-out)', fanOut.reduce((sum, [, us]) => sum + us, 0), 'us', 'informational', { processes: fanOut.map(([name]) => name).join(' ') });
} finally {
  agent.destroy();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** CPU time so far in ms: the kernel's own, and each running extension's (its sandbox included). */
function cpuSplit(s: CliServer, extensions: Array<{ name: string; pid: number | null }>): Record<string, number> {
  const split: Record<string, number> = {};
  let inExtensions = 0;
  for (const ext of extensions) {
    split[ext.name] = cpuMs(ext.pid!);
    inExtensions += split[ext.name]!;
  }
  split.kernel = cpuMs(s.pid) - inExtensions;
  return split;
}

function roundedSplit(split: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(split).map(([name, us]) => [`${name}Us`, Math.round(us)]));
}

/** Creates agents on CONNECTIONS connections for `ms`; returns how many were created. */
async function drive(s: CliServer, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < until) {
      const status = await post(s.url, { name: `bench-${process.pid}-${++sequence}`, model: 'claude-sonnet-4-5' });
      if (status !== 201) throw new Error(`POST /api/agents answered ${status}`);
      done++;
    }
  }));
  return done;
}

function post(url: string, body: unknown): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/agents`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
