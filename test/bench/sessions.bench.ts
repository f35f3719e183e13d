// Sessions, measured on the shipped server against the fake Anthropic API:
// 1. one session event delivered to 1,000 subscribed WebSocket clients (held by a worker thread, so
//    the clients' own work does not slow the driver): latency from the moment the sessions extension
//    stamps the event (`event.at`) to its receipt by each client;
// 2. the runtime's own overhead per turn: a turn's wall time (POST message → turn_end received) minus
//    the fixed delay the fake provider adds to every reply;
// 3. session start: POST /api/sessions → 201 with a running runner (taken warm from the spare).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';
import { summarize } from './lib/stats.js';

const report = reporter('sessions');
const CLIENTS = 1_000;
const FANOUT_EVENTS = 20;
const TURNS = 20;
const PROVIDER_DELAY_MS = 100;

async function fanOut(agentId: string): Promise<void> {
  // A paused session (its provider answered 503) still records and streams each message it is sent,
  // without a model turn: one POST, one event.
  const session = await post('/api/sessions', { agentId, initialPrompt: 'wait', resumeUnitMs: 3_600_000 });
  await until(async () => (await get(`/api/sessions/${session.id}`)).status === 'paused');
  const worker = new Worker(CLIENT_WORKER, { eval: true, workerData: { wsModule: createRequire(import.meta.url).resolve('ws'), url: `ws://127.0.0.1:${server.port}/ws`, sessionId: session.id, clients: CLIENTS } });
  const fromWorker = (type: string) => new Promise<any>((resolve, reject) => {
    const onMessage = (m: any) => m.type === type && (worker.off('message', onMessage), resolve(m));
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
  await fromWorker('ready');
  for (let i = 0; i < FANOUT_EVENTS; i++) {
    await post(`/api/sessions/${session.id}/messages`, { content: `event ${i}` });
    await new Promise((r) => setTimeout(r, 100));
  }
  worker.postMessage({ type: 'collect', expected: CLIENTS * FANOUT_EVENTS });
  const { latencies } = await fromWorker('latencies');
  await worker.terminate();
  const s = summarize(latencies);
  report('session event → 1,000 subscribed WebSocket clients, p99', s.p99, 'ms', 'p99 < 50 ms', { p50: s.p50, max: s.max, samples: s.count, clients: CLIENTS, events: FANOUT_EVENTS });
}

async function turnOverhead(agentId: string): Promise<void> {
  anthropic.setScript([{ text: 'A short answer.', delayMs: PROVIDER_DELAY_MS }]);
  const starts: number[] = [];
  let session: any;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    session = await post('/api/sessions', { agentId });
    starts.push(performance.now() - t0);
    if (i < 4) await post(`/api/sessions/${session.id}/stop`, {});
    await new Promise((r) => setTimeout(r, 2_000)); // time for the spare runner to warm up, as between real session starts
  }
  const ws = await server.ws();
  ws.send({ type: 'subscribe', sessionId: session.id });
  await ws.next((m) => m.type === 'subscribed');
  const overheads: number[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const t0 = performance.now();
    await post(`/api/sessions/${session.id}/messages`, { content: `turn ${turn}` });
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'turn_end' && m.event.turn === turn, 30_000);
    overheads.push(performance.now() - t0 - PROVIDER_DELAY_MS);
  }
  await ws.close();
  const t = summarize(overheads.slice(2)); // the first turns warm up the SDK and the connection pool
  report('runtime overhead per turn (turn time − provider delay), median', t.p50, 'ms', 'as small as possible; reported, no fixed target', { p90: t.p90, max: t.max, turns: t.count, providerDelayMs: PROVIDER_DELAY_MS, turnsPerContext: 8 });
  const st = summarize(starts.slice(1));
  report('session start (POST /api/sessions → running runner), median', st.p50, 'ms', 'reported, no fixed target', { max: st.max, starts: st.count });
}

async function post(path: string, body: unknown): Promise<any> {
  const res = await server.api('POST', path, { body });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

async function get(path: string): Promise<any> {
  return (await server.api('GET', path)).body;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the bench session never reached the expected state');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The clients, in a worker: connect and subscribe all, then time every user_message event they get. */
const CLIENT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.wsModule);
const latencies = [];
let expected = Infinity;
const sockets = [];
function done() { if (latencies.length >= expected) { parentPort.postMessage({ type: 'latencies', latencies }); for (const s of sockets) s.terminate(); } }
function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(workerData.url);
    sockets.push(ws);
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', sessionId: workerData.sessionId })));
    ws.on('message', (data) => {
      const now = Date.now();
      const m = JSON.parse(data.toString());
      if (m.type === 'subscribed') resolve();
      else if (m.type === 'error') reject(new Error(m.message));
      else if (m.type === 'session_event' && m.event.type === 'user_message') { latencies.push(now - Date.parse(m.event.at)); done(); }
    });
  });
}
(async () => {
  for (let i = 0; i < workerData.clients; i += 50) await Promise.all(Array.from({ length: Math.min(50, workerData.clients - i) }, open));
  parentPort.postMessage({ type: 'ready' });
})().catch((err) => { throw err; });
parentPort.on('message', (m) => { if (m.type === 'collect') { expected = m.expected; done(); } });
`;

const anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ error: { status: 503 } }] });
const server = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url } });
try {
  const agent = await post('/api/agents', { name: 'bench', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' });
  await fanOut(agent.id);
  await turnOverhead(agent.id);
} finally {
  await server.cleanup();
  await anthropic.close();
}
