// The WebSocket clients' process (see ws-clients.ts): for each job it receives over IPC it opens N
// clients at once, waits for every `welcome` (or failure), answers with the timings, closes them all.
import { performance } from 'node:perf_hooks';
import { getEachMessage, sendMessage } from 'execa';
import WebSocket from 'ws';
import type { WsJob, WsResult } from './ws-clients.js';

async function connectAll(job: WsJob): Promise<WsResult> {
  const sockets: WebSocket[] = [];
  const times = new Float64Array(job.clients).fill(Number.NaN);
  let failed = 0;
  let firstError: string | undefined;
  let last = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: job.clients }, (_, i) => new Promise<void>((resolve) => {
    const started = performance.now();
    const socket = new WebSocket(job.url);
    sockets.push(socket);
    let settled = false;
    const settle = (why?: string) => {
      if (settled) return;
      settled = true;
      if (why !== undefined) {
        failed++;
        firstError ??= why;
      }
      resolve();
    };
    socket.once('message', (data) => {
      const now = performance.now();
      if ((JSON.parse(String(data)) as { type?: string }).type !== 'welcome') return settle(`first message was not welcome: ${String(data).slice(0, 100)}`);
      times[i] = now - started;
      last = Math.max(last, now);
      settle();
    });
    socket.on('error', (err) => settle(err.message));
  })));
  const result: WsResult = { welcomed: job.clients - failed, failed, firstConnectToLastWelcomeMs: last - t0, connectToWelcome: times.filter((t) => !Number.isNaN(t)), ...(firstError ? { firstError } : {}) };
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => {
    if (s.readyState === WebSocket.CLOSED) return resolve();
    s.once('close', () => resolve());
    s.close();
  })));
  return result;
}

for await (const message of getEachMessage()) {
  await sendMessage((await connectAll(message as unknown as WsJob)) as unknown as Parameters<typeof sendMessage>[0]);
}
