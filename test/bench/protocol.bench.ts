// The cli-v1 round trip, at three depths, each measured two ways: sequential request → response
// latency (one in flight), and responses per second with many requests in flight.
//   1. kernel → extension: the kernel's registry.request to a real extension child running the same
//      frame as every extension (runExtension), exactly the path an HTTP request to an extension takes
//      once it has been matched and authenticated. The targets apply to this one.
//   2. bare protocol: a Peer in this process ↔ a child process that is nothing but a Peer.
//   3. in-process reference: two Peers joined by PassThrough streams (framing and JSON, no pipes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Peer, PluginChild, startServer } from './lib/dist.js';
import { reporter } from './lib/report.js';
import { summarize } from './lib/stats.js';

const report = reporter('protocol');
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'fixtures');
const SEQUENTIAL = Number(process.env.ROOST_BENCH_SEQUENTIAL ?? 10_000);
const IN_FLIGHT = 64;
const PIPELINED_MS = Number(process.env.ROOST_BENCH_PIPELINED_MS ?? 3_000);

/** What a project looks like on the wire: the body of a typical answer. */
const PROJECT = {
  id: '5b0e8e0c-3f4c-4b7a-9a51-1f0c2b7c9d10',
  name: 'bench',
  description: 'a project read over and over',
  workingDir: '/tmp/roost-bench/work',
  env_vars: { NODE_ENV: 'production' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

type RoundTrip = () => Promise<unknown>;

await kernelToExtension();
await bareChild();
await inProcess();

async function kernelToExtension(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-protocol-'));
  const server = await startServer({ port: 0, dataDir, extensionDirs: [fixtures] });
  try {
    const message = {
      type: 'request',
      method: 'POST',
      path: '/api/bench-echo',
      route: 'POST /api/bench-echo',
      params: {},
      query: {},
      body: PROJECT,
      auth: { tenantId: 'default', role: 'owner', actor: 'local' },
    };
    const trip = () => server.kernel.registry.request<{ status: number }>('bench-echo', message);
    const first = await trip();
    if (first.status !== 200) throw new Error(`the echo extension answered ${JSON.stringify(first)}`);
    await measure('kernel → extension request', trip, { median: '< 0.1 ms (100 µs)', rate: '>= 20000 ops/s' });
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function bareChild(): Promise<void> {
  const child = new PluginChild(join(fixtures, 'echo-peer.js'), [], { cwd: fixtures, onStderr: (line) => process.stderr.write(`[echo-peer] ${line}\n`) });
  try {
    const trip = () => child.peer.request({ type: 'echo', value: PROJECT });
    await measure('bare Peer ↔ child process', trip, { median: 'reference', rate: 'reference' });
  } finally {
    await child.stop();
  }
}

async function inProcess(): Promise<void> {
  const there = new PassThrough();
  const back = new PassThrough();
  new Peer(back).handle('echo', (m) => m.value).attach(there);
  const near = new Peer(there).attach(back);
  await measure('in-process Peer ↔ Peer (PassThrough)', () => near.request({ type: 'echo', value: PROJECT }), { median: 'reference', rate: 'reference' });
}

async function measure(what: string, trip: RoundTrip, targets: { median: string; rate: string }): Promise<void> {
  for (let i = 0; i < 2_000; i++) await trip(); // warm-up: JIT, buffers
  const latencies = new Float64Array(SEQUENTIAL);
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    await trip();
    latencies[i] = performance.now() - t0;
  }
  const seq = summarize(latencies);
  report(`${what}: sequential round trip, median`, seq.p50, 'ms', targets.median, { samples: seq.count });
  report(`${what}: sequential round trip, p99`, seq.p99, 'ms', 'informational', { samples: seq.count, max: seq.max });

  await pipelined(trip, 500);
  const { answered, seconds } = await pipelined(trip, PIPELINED_MS);
  report(`${what}: round trips per second, ${IN_FLIGHT} in flight`, answered / seconds, 'ops/s', targets.rate, {
    inFlight: IN_FLIGHT,
    messagesPerSecond: (2 * answered) / seconds,
    note: 'one op = a request and its response',
  });
}

/** Keeps IN_FLIGHT requests outstanding until the time is up; counts the answers. */
async function pipelined(trip: RoundTrip, durationMs: number): Promise<{ answered: number; seconds: number }> {
  let answered = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      await trip();
      answered++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { answered, seconds: (performance.now() - started) / 1000 };
}
