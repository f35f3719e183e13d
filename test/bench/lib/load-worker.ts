// The load generator's process (see load.ts): for each job it receives over IPC it drives one URL
// with N keep-alive connections, each sending its next GET as soon as the previous response has
// been read completely, until the duration is over. It answers with every latency it measured.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getEachMessage, sendMessage } from 'execa';
import type { LoadJob, LoadResult } from './load.js';

const agents = new Map<string, Agent>();

function agentFor(origin: string, connections: number): Agent {
  let agent = agents.get(origin);
  if (!agent || agent.maxSockets !== connections) {
    agent?.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
    agents.set(origin, agent);
  }
  return agent;
}

function get(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET' }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function drive(job: LoadJob): Promise<LoadResult> {
  const url = new URL(job.url);
  const agent = agentFor(url.origin, job.connections);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + job.durationMs;
  const connection = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const status = await get(agent, url);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, connection));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { latencies: Float64Array.from(latencies), statuses, failures, elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

for await (const message of getEachMessage()) {
  await sendMessage((await drive(message as unknown as LoadJob)) as unknown as Parameters<typeof sendMessage>[0]);
}
for (const agent of agents.values()) agent.destroy();
