// The self-test's end-to-end checks: a round trip through each front, over real HTTP and WebSocket to
// this server's own port, with a short-lived owner key made for the purpose and revoked after. REST makes
// an agent and reads it back; the WebSocket, subscribed to that agent's stream, sees a change made over
// REST; MCP lists the agents through svc_list_agents and finds it. Everything made is deleted after.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { RoostError } from '../../protocol/errors.js';
import { DEFAULT_TENANT } from '../auth/keys.js';
import type { Kernel } from '../kernel.js';
import { timed, type CheckResult } from './report.js';

const WAIT_MS = 10_000;

export async function e2eChecks(k: Kernel, port: number): Promise<CheckResult[]> {
  const base = `http://127.0.0.1:${port}`;
  const { key, record } = await k.keys.create(DEFAULT_TENANT, 'owner', 'selftest', new Date(Date.now() + 10 * 60_000).toISOString());
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(WAIT_MS) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const name = `selftest-${randomUUID().slice(0, 8)}`;
  let agentId: string | undefined;
  try {
    const results = [await timed('REST: create an agent and read it back', 'e2e', async () => {
      const made = await api('POST', '/api/agents', { name, description: 'made by the self-test; deleted after it' });
      if (made.status === 404 && made.body.code === 'ROUTE_NOT_FOUND') return { skipped: 'the agents extension is not loaded: it is what the round trips use' };
      if (made.status !== 201) throw new RoostError('INTERNAL', `POST /api/agents answered ${made.status}: ${made.body.error}`);
      agentId = String(made.body.id);
      const read = await api('GET', `/api/agents/${agentId}`);
      if (read.status !== 200 || read.body.name !== name) throw new RoostError('INTERNAL', `GET /api/agents/${agentId} answered ${read.status}`);
      return `agent ${agentId} made and read back`;
    })];
    if (!agentId) return results;
    results.push(await timed('WebSocket: a subscriber sees a change made over REST', 'e2e', () => webSocketRoundTrip(base, key, agentId!, api)));
    results.push(await timed('MCP: svc_list_agents finds the agent', 'e2e', () => mcpRoundTrip(base, key, name)));
    return results;
  } finally {
    if (agentId) await api('DELETE', `/api/agents/${agentId}`).catch(() => undefined);
    await k.keys.revoke(DEFAULT_TENANT, record.keyHash);
  }
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>;

async function webSocketRoundTrip(base: string, key: string, agentId: string, api: Api): Promise<string> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${key}` } });
  try {
    const seen = (match: (m: Record<string, any>) => boolean, what: string) => new Promise<Record<string, any>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RoostError('TIMEOUT', `no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, any>;
        if (message.type === 'error') reject(new RoostError('INTERNAL', `the WebSocket answered an error: ${message.message}`));
        if (match(message)) {
          clearTimeout(timer);
          resolve(message);
        }
      });
      socket.on('error', reject);
    });
    const subscribed = seen((m) => m.type === 'subscribed', 'subscribed');
    await new Promise<void>((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'subscribe', agentId }));
    await subscribed;
    const updated = seen((m) => m.type === 'agent_updated' && m.agentId === agentId, 'agent_updated event');
    const change = await api('PUT', `/api/agents/${agentId}`, { description: 'changed by the self-test' });
    if (change.status !== 200) throw new RoostError('INTERNAL', `PUT /api/agents/${agentId} answered ${change.status}`);
    await updated;
    return 'subscribed to the agent, saw agent_updated after the REST change';
  } finally {
    socket.terminate();
  }
}

async function mcpRoundTrip(base: string, key: string, name: string): Promise<string> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'roost-selftest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    const result = await client.callTool({ name: 'svc_list_agents', arguments: {} }, undefined, { timeout: WAIT_MS });
    const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
    if (result.isError || !text.includes(name)) throw new RoostError('INTERNAL', `svc_list_agents answered ${text.slice(0, 200)}`);
    return 'initialize, tools/call svc_list_agents: the agent is listed';
  } finally {
    await client.close();
  }
}
