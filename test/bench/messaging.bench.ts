// Agent-to-agent messages, measured on the shipped server against the fake Anthropic API, whose every
// reply comes after a fixed delay: svc_send_message's round trip (MCP call → the recipient's reply)
// minus that delay, against the baseline of the same turn driven directly (POST a message to the
// session, wait for its turn_end on the WebSocket) — the difference is what messaging itself costs:
// looking both agents up, the thread and the loop limits, recording the message and the reply, and
// reading the answer from the session's stored events.
import { callTool, FIXTURES, mcpClient } from '../agents/support.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';
import { summarize } from './lib/stats.js';

const report = reporter('messaging');
const PROVIDER_DELAY_MS = 100;
const MESSAGES = 20;
const NEW_THREADS = 5;

const anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ text: 'Noted.', delayMs: PROVIDER_DELAY_MS }] });
const server = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXTENSION_DIRS: FIXTURES } });

async function post(path: string, body: unknown): Promise<any> {
  const res = await server.api('POST', path, { body });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

try {
  // The bench sends more, and faster, than the loop limits allow a real session.
  const limits = await server.api('PUT', '/api/settings/messaging', { body: { maxMessagesPerSession: 1000, minSpacingMs: 0 } });
  if (limits.status !== 200) throw new Error(`limits not set: ${limits.text}`);
  const sender = await post('/api/agents', { name: 'sender', model: 'claude-sonnet-5-5' });
  await post('/api/agents', { name: 'recipient', model: 'claude-sonnet-5-5' });
  const senderSession = await post('/api/sessions', { agentId: sender.id, initialPrompt: 'start' });
  const { token } = await post(`/api/fx-caller/token/${sender.id}`, { sessionId: senderSession.id });
  const client = await mcpClient(server, token);

  const send = async (args: Record<string, unknown>) => {
    const t0 = performance.now();
    const sent = await callTool(client, 'svc_send_message', args);
    if (sent.isError) throw new Error(`svc_send_message failed: ${sent.text}`);
    return { ms: performance.now() - t0 - PROVIDER_DELAY_MS, value: sent.value };
  };

  // New threads: each starts a session for the recipient (a spare runner warms up between them, as
  // between real session starts).
  const starts: number[] = [];
  let thread = '';
  for (let i = 0; i < NEW_THREADS; i++) {
    const { ms, value } = await send({ to_agent: 'recipient', message: `open ${i}` });
    starts.push(ms);
    thread = value.thread;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  const { value: last } = await send({ to_agent: 'recipient', message: 'warm', thread });

  const threaded: number[] = [];
  for (let i = 0; i < MESSAGES; i++) threaded.push((await send({ to_agent: 'recipient', message: `message ${i}`, thread })).ms);

  // The baseline: the same turn in the same session, driven directly.
  const ws = await server.ws();
  ws.send({ type: 'subscribe', sessionId: last.sessionId });
  await ws.next((m) => m.type === 'subscribed');
  const direct: number[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const t0 = performance.now();
    await post(`/api/sessions/${last.sessionId}/messages`, { content: `direct ${i}` });
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'turn_end' && m.event.done === true, 30_000);
    direct.push(performance.now() - t0 - PROVIDER_DELAY_MS);
  }
  await ws.close();
  await client.close();

  const m = summarize(threaded.slice(2));
  const d = summarize(direct.slice(2));
  report('svc_send_message round trip − provider delay, in a thread, median', m.p50, 'ms', 'reported against the direct turn; no fixed target', {
    baseline: d.p50,
    baselineFigure: 'the same turn posted to the session directly, turn_end on the WebSocket',
    messagingOverhead: m.p50 - d.p50,
    p90: m.p90,
    max: m.max,
    samples: m.count,
    providerDelayMs: PROVIDER_DELAY_MS,
  });
  const s = summarize(starts.slice(1));
  report('svc_send_message round trip − provider delay, new thread (session start), median', s.p50, 'ms', 'reported, no fixed target', { max: s.max, samples: s.count, providerDelayMs: PROVIDER_DELAY_MS });
} finally {
  await server.cleanup();
  await anthropic.close();
}
