// 1,000 WebSocket clients connecting at once to the shipped `roost serve`, opened concurrently by a
// process of their own: the time from the first connect to the last `welcome`, each client's connect
// to welcome, and the server's CPU for it. A warm-up round first; then rounds, the median reported.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs } from './lib/proc.js';
import { reporter } from './lib/report.js';
import { startCliServer } from './lib/serve-cli.js';
import { median, summarize } from './lib/stats.js';
import { WsClients, type WsResult } from './lib/ws-clients.js';

const report = reporter('ws');
const CLIENTS = 1_000;
const ROUNDS = 5;

const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-ws-'));
const server = await startCliServer(dataDir);
const clients = new WsClients();
try {
  const url = `${server.url.replace('http', 'ws')}/ws`;
  check(await clients.run({ url, clients: 100 }), 100);
  const rounds: Array<{ result: WsResult; serverCpuMs: number }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    const cpuBefore = cpuMs(server.pid);
    const result = await clients.run({ url, clients: CLIENTS });
    rounds.push({ result, serverCpuMs: cpuMs(server.pid) - cpuBefore });
    check(result, CLIENTS);
  }
  const all = summarize(Float64Array.from(rounds.flatMap((r) => [...r.result.connectToWelcome])));
  report(`${CLIENTS} WebSocket clients opened at once: first connect to last welcome, median of ${ROUNDS} rounds`, median(rounds.map((r) => r.result.firstConnectToLastWelcomeMs)), 'ms', '<= 400 ms', {
    runs: rounds.map((r) => Math.round(r.result.firstConnectToLastWelcomeMs)),
    serverCpuMsPerRound: rounds.map((r) => r.serverCpuMs),
  });
  report(`${CLIENTS} WebSocket clients opened at once: one client's connect to welcome, p99`, all.p99, 'ms', 'informational', { p50: all.p50, max: all.max, samples: all.count });
} finally {
  await clients.close();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}

function check(result: WsResult, expected: number): void {
  if (result.welcomed !== expected) throw new Error(`${result.welcomed} of ${expected} clients welcomed; ${result.failed} failed (${result.firstError ?? 'no error'})`);
}
