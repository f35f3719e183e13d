// The price of isolation, measured side by side in one run: an extension's route served out of
// process against the very same handler served inside the kernel (the embedding hook), both behind the
// same middleware chain, each driven by 50 keep-alive connections from a load generator in its own
// process, in interleaved rounds. Two handlers: the agents extension's GET /api/agents listing 20
// agents (a SQLite read; the target figures, with the server's CPU per request summed over every
// process) and an echo that touches no storage (the boundary alone).
// (Start-up and idle memory: startup.bench.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, type AbResult } from './lib/ab.js';
import { agentRoutes, agentsDir, startServer } from './lib/dist.js';
import { routes as echoRoutes } from './lib/fixtures/echo-extension/routes.js';
import { embeddedRoute, inKernelContext, type InKernelContext } from './lib/in-kernel.js';
import { LoadGenerator } from './lib/load.js';
import { reporter } from './lib/report.js';

const report = reporter('kernel');
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'fixtures');
const AB = {
  connections: 50,
  rounds: 4,
  roundMs: Number(process.env.ROOST_BENCH_ROUND_MS ?? 1_500),
  warmupMs: Number(process.env.ROOST_BENCH_WARMUP_MS ?? 2_000),
};
const AGENTS = 20;

await isolation();

async function isolation(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-'));
  const contexts: Record<string, InKernelContext> = {};
  // The shipped extensions plus the echo extension.
  const server = await startServer({ port: 0, dataDir, allowedRoots: [dataDir], extensionDirs: [dirname(agentsDir), fixtures] }, {
    routes: [
      embeddedRoute('/api/bench-inproc/agents', agentRoutes['GET /api/agents']!, () => contexts.agents!.ctx),
      embeddedRoute('/api/bench-inproc/echo/:id', echoRoutes['GET /api/bench-echo/:id'], () => contexts.echo!.ctx),
    ],
  });
  const load = new LoadGenerator();
  try {
    for (let i = 0; i < AGENTS; i++) {
      const created = await fetch(`${server.url}/api/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-agent-${i}`, description: 'an agent listed over and over', systemPrompt: 'You review pull requests.' }),
      });
      if (created.status !== 201) throw new Error(`creating an agent answered ${created.status}: ${await created.text()}`);
    }
    contexts.agents = await inKernelContext(server, 'agents', agentsDir, true);
    contexts.echo = await inKernelContext(server, 'bench-echo', join(fixtures, 'echo-extension'), false);
    const pid = (name: string) => server.kernel.registry.get(name).process!.pid!;

    const agents = [
      { name: 'extension', url: `${server.url}/api/agents` },
      { name: 'in-kernel', url: `${server.url}/api/bench-inproc/agents` },
    ] as const;
    await sameAnswer(agents);
    reportPair(`GET /api/agents (${AGENTS} agents)`, await compare(load, [...agents], { ...AB, extensionPid: pid('agents') }), true);

    const echo = [
      { name: 'extension', url: `${server.url}/api/bench-echo/bench` },
      { name: 'in-kernel', url: `${server.url}/api/bench-inproc/echo/bench` },
    ] as const;
    await sameAnswer(echo);
    reportPair('echo route (no storage)', await compare(load, [...echo], { ...AB, extensionPid: pid('bench-echo') }), false);
  } finally {
    await load.close();
    await server.close();
    for (const c of Object.values(contexts)) await c.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Both routes must serve the same answer, or the comparison means nothing. */
async function sameAnswer(sides: ReadonlyArray<{ name: string; url: string }>): Promise<void> {
  const bodies = await Promise.all(sides.map(async (s) => {
    const res = await fetch(s.url);
    if (res.status !== 200) throw new Error(`${s.name} route answered ${res.status}: ${await res.text()}`);
    return res.text();
  }));
  if (bodies[0] !== bodies[1]) throw new Error(`the two routes disagree:\n${bodies[0]}\n${bodies[1]}`);
}

function reportPair(route: string, [ext, kern]: [AbResult, AbResult], targeted: boolean): void {
  const cost = (r: AbResult) => ({
    requests: r.requests,
    seconds: r.seconds,
    connections: AB.connections,
    meanMs: r.latency.mean,
    kernelCpuUsPerRequest: r.kernelCpuUsPerRequest,
    extensionCpuUsPerRequest: r.extensionCpuUsPerRequest,
    loadGeneratorCpuUsPerRequest: r.loadGeneratorCpuUsPerRequest,
  });
  const target = (text: string) => (targeted ? text : 'reference');
  report(`${route}, in-kernel handler: throughput`, kern.throughput, 'ops/s', 'baseline', cost(kern));
  report(`${route}, extension: throughput`, ext.throughput, 'ops/s', target('>= 0.8x in-kernel'), { ...cost(ext), baseline: kern.throughput });
  report(`${route}: extension / in-kernel throughput`, ext.throughput / kern.throughput, 'x', target('>= 0.8'), { extension: ext.throughput, baseline: kern.throughput });
  const serverCpu = (r: AbResult) => r.kernelCpuUsPerRequest + r.extensionCpuUsPerRequest;
  report(`${route}, extension: server CPU per request (kernel + extension processes)`, serverCpu(ext), 'us', target('<= 300 us'), {
    kernelUs: ext.kernelCpuUsPerRequest, extensionUs: ext.extensionCpuUsPerRequest, baseline: serverCpu(kern),
  });
  report(`${route}, in-kernel handler: p50 latency`, kern.latency.p50, 'ms', 'baseline', { connections: AB.connections });
  report(`${route}, in-kernel handler: p99 latency`, kern.latency.p99, 'ms', 'baseline', { connections: AB.connections, max: kern.latency.max });
  report(`${route}, extension: p50 latency`, ext.latency.p50, 'ms', 'informational', { connections: AB.connections, baseline: kern.latency.p50 });
  report(`${route}, extension: p99 latency`, ext.latency.p99, 'ms', target('< 10 ms at 50 connections'), { connections: AB.connections, baseline: kern.latency.p99, max: ext.latency.max });
}
