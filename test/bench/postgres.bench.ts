// Storage on PostgreSQL against SQLite, and the bus across instances, on the shipped `roost serve`:
// - GET /api/agents (20 agents) on a server on SQLite and one on PostgreSQL (a throwaway local server,
//   fsync off), 50 keep-alive connections from a load generator in its own process, interleaved rounds;
// - a bus event from instance A to a WebSocket client of instance B (two servers on one database): a
//   project updated through A's REST API until the client of B has the event, beside the same to a
//   client of A itself (the baseline: what crossing instances adds is the difference).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { startPostgres } from '../helpers/postgres.js';
import { LoadGenerator } from './lib/load.js';
import { cpuMs } from './lib/proc.js';
import { reporter } from './lib/report.js';
import { startCliServer, type CliServer } from './lib/serve-cli.js';
import { summarize } from './lib/stats.js';

const report = reporter('postgres');
const AGENTS = 20;
const LOAD = { connections: 50, rounds: 4, roundMs: Number(process.env.ROOST_BENCH_ROUND_MS ?? 1_500), warmupMs: Number(process.env.ROOST_BENCH_WARMUP_MS ?? 2_000) };
const EVENTS = 500;

const postgres = await startPostgres();
const dirs: string[] = [];
const servers: CliServer[] = [];
const load = new LoadGenerator();
const dataDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'roost-bench-pg-'));
  dirs.push(dir);
  return dir;
};
const serve = async (env: Record<string, string> = {}) => {
  const server = await startCliServer(await dataDir(), env);
  servers.push(server);
  return server;
};
try {
  await agentsList();
  await busAcross();
} finally {
  await load.close();
  for (const server of servers) await server.stop();
  await postgres.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}

async function agentsList(): Promise<void> {
  const sides = [
    { name: 'sqlite', server: await serve() },
    { name: 'postgres', server: await serve({ ROOST_DATABASE_URL: await postgres.createDatabase() }) },
  ];
  for (const { server } of sides) {
    for (let i = 0; i < AGENTS; i++) {
      const created = await server.api('POST', '/api/agents', { name: `bench-agent-${i}`, description: 'an agent listed over and over', systemPrompt: 'You review pull requests.' });
      if (created.status !== 201) throw new Error(`creating an agent answered ${created.status}: ${JSON.stringify(created.body)}`);
    }
  }
  const acc = sides.map(() => ({ latencies: [] as number[], ms: 0, cpuMs: 0 }));
  for (const { server } of sides) await load.run({ url: `${server.url}/api/agents`, connections: LOAD.connections, durationMs: LOAD.warmupMs });
  for (let round = 0; round < LOAD.rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const { name, server } = sides[i]!;
      const cpuBefore = cpuMs(server.pid);
      const result = await load.run({ url: `${server.url}/api/agents`, connections: LOAD.connections, durationMs: LOAD.roundMs });
      const wrong = Object.keys(result.statuses).filter((status) => status !== '200');
      if (wrong.length > 0 || result.failures > 0) throw new Error(`${name}: answered ${JSON.stringify(result.statuses)} with ${result.failures} socket failures`);
      acc[i]!.latencies.push(...result.latencies);
      acc[i]!.ms += result.elapsedMs;
      acc[i]!.cpuMs += cpuMs(server.pid) - cpuBefore;
    }
  }
  const [sqlite, pg] = acc.map((a) => ({ throughput: a.latencies.length / (a.ms / 1000), latency: summarize(a.latencies), cpuUsPerRequest: (a.cpuMs * 1000) / a.latencies.length }));
  report(`GET /api/agents (${AGENTS} agents), PostgreSQL vs SQLite: throughput`, pg!.throughput / sqlite!.throughput, 'x', 'informational', {
    postgresOpsPerSecond: pg!.throughput,
    sqliteOpsPerSecond: sqlite!.throughput,
  });
  report(`GET /api/agents (${AGENTS} agents) on PostgreSQL: p99 at ${LOAD.connections} connections`, pg!.latency.p99, 'ms', 'informational', {
    p50: pg!.latency.p50,
    sqliteP99: sqlite!.latency.p99,
    sqliteP50: sqlite!.latency.p50,
    // The server's processes only: PostgreSQL's own backends are not counted.
    serverCpuUsPerRequest: pg!.cpuUsPerRequest,
    sqliteServerCpuUsPerRequest: sqlite!.cpuUsPerRequest,
  });
}

async function busAcross(): Promise<void> {
  const databaseUrl = await postgres.createDatabase();
  // Outside the data dirs: the sandbox hides a server's data dir even inside an allowed root.
  const work = await dataDir();
  const a = await serve({ ROOST_DATABASE_URL: databaseUrl, ROOST_ALLOWED_ROOTS: work });
  const b = await serve({ ROOST_DATABASE_URL: databaseUrl, ROOST_ALLOWED_ROOTS: work });
  const project = await a.api('POST', '/api/projects', { name: 'bench-bus', workingDir: work });
  if (project.status !== 201) throw new Error(`creating the project answered ${project.status}: ${JSON.stringify(project.body)}`);
  const id = project.body.id as string;
  const [onA, onB] = await Promise.all([subscriber(a.url, id), subscriber(b.url, id)]);
  const viaA: number[] = [];
  const viaB: number[] = [];
  for (let i = 0; i < EVENTS + 50; i++) {
    const name = `bench-bus-${i}`;
    const started = performance.now();
    const seen = [onA.next(name).then(() => performance.now() - started), onB.next(name).then(() => performance.now() - started)];
    const updated = await a.api('PUT', `/api/projects/${id}`, { name });
    if (updated.status !== 200) throw new Error(`updating the project answered ${updated.status}`);
    const [sameInstance, otherInstance] = await Promise.all(seen);
    if (i < 50) continue; // warm-up
    viaA.push(sameInstance!);
    viaB.push(otherInstance!);
  }
  onA.close();
  onB.close();
  const local = summarize(viaA);
  const across = summarize(viaB);
  report(`bus event from instance A to a WebSocket client of instance B (REST update on A to event on B), p99`, across.p99, 'ms', '< 20 ms', {
    p50: across.p50,
    sameInstanceP99: local.p99,
    sameInstanceP50: local.p50,
    addedP50: across.p50 - local.p50,
    samples: across.count,
  });
}

/** A WebSocket client subscribed to a project's stream, waiting for updates by the project's name. */
async function subscriber(url: string, projectId: string): Promise<{ next(name: string): Promise<void>; close(): void }> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/ws`);
  const waiting = new Map<string, () => void>();
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'subscribed') resolve();
      if (m.type === 'project_updated') waiting.get(m.project.name)?.();
    });
    socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', projectId })));
  });
  return {
    next: (name) => new Promise<void>((resolve) => waiting.set(name, () => {
      waiting.delete(name);
      resolve();
    })),
    close: () => socket.close(),
  };
}
