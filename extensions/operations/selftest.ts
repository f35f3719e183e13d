// The self-test's end-to-end checks (SELFTEST_ROUTE: the kernel asks, with its own checks of stores,
// audit and health beside them): a session round trip through each front, over real HTTP and WebSocket
// to the address the server listens on, against the built-in echo provider (it answers with the prompt:
// no model needed), as the owner key the kernel made for the run (revoked after). REST makes an agent on
// the echo provider and reads it back; a session of it is sent a turn over REST and one over the
// WebSocket, and the subscriber sees both answers; over MCP a second echo agent messages the first with
// svc_send_message and gets its answer. Every agent and session made is removed after.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { RoostError } from '../../protocol/errors.js';
import { timedCheck as timed, type SelftestCheck, type SelftestRequest } from '../../protocol/selftest.js';
import type { HostClient } from '../../sdk/host-client.js';
import { routePath } from '../../sdk/route-call.js';
import { AGENTS_ROUTES } from '../agents/contract.js';
import { SESSIONS_ROUTES } from '../sessions/contract.js';

const DEFAULT_TENANT = 'default';
const TOKEN_TTL_SECONDS = 120;
const WAIT_MS = 30_000;

type Api = (call: { method: string; path: string }, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>;
const notServed = (reply: { status: number; body: Record<string, any> }) => reply.status === 404 && reply.body.code === 'ROUTE_NOT_FOUND';

export async function selfChecks({ base, key }: SelftestRequest, host: HostClient): Promise<SelftestCheck[]> {
  const api: Api = async ({ method, path }, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(WAIT_MS) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const nonce = randomUUID().slice(0, 8);
  const made = { agents: [] as string[], sessions: [] as string[] };
  const echoAgent = async (name: string) => {
    const reply = await api(routePath(AGENTS_ROUTES.create), { name, provider: 'echo', model: 'echo', description: 'made by the self-test; deleted after it' });
    if (reply.status === 201) made.agents.push(String(reply.body.id));
    return reply;
  };
  try {
    let agentId: string | undefined;
    const results = [await timed('REST: create an agent on the echo provider and read it back', 'e2e', async () => {
      const created = await echoAgent(`selftest-${nonce}`);
      if (notServed(created)) return { skipped: 'the agents extension is not loaded: the round trips need an agent' };
      if (created.status !== 201) throw new RoostError('INTERNAL', `${AGENTS_ROUTES.create} answered ${created.status}: ${created.body.error}`);
      const readAt = routePath(AGENTS_ROUTES.get, { id: String(created.body.id) });
      const read = await api(readAt);
      if (read.status !== 200 || read.body.provider !== 'echo') throw new RoostError('INTERNAL', `${readAt.method} ${readAt.path} answered ${read.status}`);
      agentId = String(created.body.id);
      return `agent ${agentId} (provider echo) made and read back`;
    })];
    if (!agentId) return results;
    results.push(await timed('REST and WebSocket: a session answers a turn sent over each, and the subscriber sees both', 'e2e', () => sessionRoundTrip(base, key, api, agentId!, nonce, made)));
    results.push(await timed('MCP: svc_send_message gets the echo agent\'s answer', 'e2e', async () => {
      const sender = await echoAgent(`selftest-${nonce}-sender`);
      if (sender.status !== 201) throw new RoostError('INTERNAL', `${AGENTS_ROUTES.create} answered ${sender.status}: ${sender.body.error}`);
      // Short-lived: the extension cannot revoke it, and its agent is deleted when the run ends.
      const token = await host.token({ tenantId: DEFAULT_TENANT, agentId: String(sender.body.id), sessionId: null, tools: [], ttlSeconds: TOKEN_TTL_SECONDS });
      return mcpRoundTrip(base, token, agentId!, nonce, made);
    }));
    return results;
  } finally {
    for (const id of made.sessions) await api(routePath(SESSIONS_ROUTES.remove, { id })).catch(() => undefined);
    for (const id of made.agents) await api(routePath(AGENTS_ROUTES.remove, { id })).catch(() => undefined);
  }
}

async function sessionRoundTrip(base: string, key: string, api: Api, agentId: string, nonce: string, made: { sessions: string[] }): Promise<string | { skipped: string }> {
  const created = await api(routePath(SESSIONS_ROUTES.create), { agentId, name: `selftest ${nonce}` });
  if (notServed(created)) return { skipped: 'the sessions extension is not loaded' };
  if (created.status !== 201) throw new RoostError('INTERNAL', `${SESSIONS_ROUTES.create} answered ${created.status}: ${created.body.error}`);
  const sessionId = String(created.body.id);
  made.sessions.push(sessionId);
  const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${key}` } });
  try {
    const seen = listen(socket);
    await new Promise<void>((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const subscribed = seen((m) => m.type === 'subscribed', 'subscribed');
    socket.send(JSON.stringify({ type: 'subscribe', sessionId }));
    await subscribed;
    const answered = (text: string) => seen((m) => m.type === 'session_event' && m.sessionId === sessionId && m.event?.type === 'assistant_message' && m.event.text === text, `the answer "${text}"`);
    const overRest = `selftest rest ${nonce}`;
    const restAnswer = answered(overRest);
    const sendAt = routePath(SESSIONS_ROUTES.send, { id: sessionId });
    const sent = await api(sendAt, { content: overRest });
    if (sent.status !== 202) throw new RoostError('INTERNAL', `${sendAt.method} ${sendAt.path} answered ${sent.status}: ${sent.body.error}`);
    await restAnswer;
    const overWs = `selftest websocket ${nonce}`;
    const wsAnswer = answered(overWs);
    socket.send(JSON.stringify({ type: 'send_message', sessionId, content: overWs }));
    await wsAnswer;
    const stored = await api(routePath(SESSIONS_ROUTES.messages, { id: sessionId }));
    const answers = ((stored.body.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'assistant').map((m) => m.content);
    if (!answers.includes(overRest) || !answers.includes(overWs)) throw new RoostError('INTERNAL', `the stored messages lack the answers: ${JSON.stringify(answers).slice(0, 200)}`);
    return `session ${sessionId}: a turn over REST and one over the WebSocket answered, seen by the subscriber and stored`;
  } finally {
    socket.terminate();
  }
}

/** Resolves on the first message (from now on) that matches; an `error` message fails it. */
function listen(socket: WebSocket) {
  return (match: (m: Record<string, any>) => boolean, what: string) => new Promise<Record<string, any>>((resolve, reject) => {
    const timer = setTimeout(() => done(new RoostError('TIMEOUT', `no ${what} on the WebSocket within ${WAIT_MS} ms`)), WAIT_MS);
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as Record<string, any>;
      if (message.type === 'error') done(new RoostError('INTERNAL', `the WebSocket answered an error: ${message.message}`));
      else if (match(message)) done(undefined, message);
    };
    const done = (err?: Error, message?: Record<string, any>) => {
      clearTimeout(timer);
      socket.off('message', onMessage).off('error', done);
      if (err) reject(err);
      else resolve(message!);
    };
    socket.on('message', onMessage).on('error', done);
  });
}

async function mcpRoundTrip(base: string, token: string, agentId: string, nonce: string, made: { sessions: string[] }): Promise<string | { skipped: string }> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'roost-selftest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const { tools } = await client.listTools(undefined, { timeout: WAIT_MS });
    if (!tools.some((t) => t.name === 'svc_send_message')) return { skipped: 'the messaging extension is not loaded: it serves svc_send_message' };
    const message = `selftest mcp ${nonce}`;
    const result = await client.callTool({ name: 'svc_send_message', arguments: { to_agent: agentId, message } }, undefined, { timeout: WAIT_MS });
    const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
    if (result.isError) throw new RoostError('INTERNAL', `svc_send_message answered an error: ${text.slice(0, 200)}`);
    const exchange = JSON.parse(text) as { reply?: string; sessionId?: string };
    if (exchange.sessionId) made.sessions.push(exchange.sessionId);
    if (exchange.reply !== message) throw new RoostError('INTERNAL', `svc_send_message answered ${text.slice(0, 200)}`);
    return `initialize, tools/list, tools/call svc_send_message: the echo agent answered in session ${exchange.sessionId}`;
  } finally {
    await client.close();
  }
}

