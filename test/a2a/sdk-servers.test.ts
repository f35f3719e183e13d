// Roost as a client of A2A servers built with the official SDK, both majors, from the packages' own
// server helpers on loopback: one on @a2a-js/sdk 1.x (A2A 1.0 only, no legacy compat: its card lists
// supportedInterfaces, its JSON-RPC speaks SendMessage/GetTask and wants A2A-Version: 1.0) and one on
// @a2a-js/sdk 0.3. Each is registered as a remote of Roost's instance tenant without a key, and an agent's
// svc_invoke_remote_agent runs a task there: Roost reads the card and speaks the version it offers.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { AgentCard, Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { DefaultRequestHandler as DefaultRequestHandlerV03, InMemoryTaskStore as InMemoryTaskStoreV03, type AgentExecutor as AgentExecutorV03 } from 'a2a-sdk-v03/server';
import { A2AExpressApp } from 'a2a-sdk-v03/server/express';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, mcpClient } from '../agents/support.js';
import { namedAgent, sessionToken, startMessagingServer, type MessagingServer } from '../messaging/support.js';

interface Seen {
  authorization: string | null;
  version: string | null;
  method: string | null;
}

/** Listens on loopback; every request's Authorization and A2A-Version headers, and JSON-RPC method, are kept in `seen`. */
async function listen(app: express.Express, seen: Seen[]): Promise<{ server: Server; url: string }> {
  const outer = express();
  outer.use(express.json());
  outer.use((req, _res, next) => {
    seen.push({ authorization: req.headers.authorization ?? null, version: (req.headers['a2a-version'] as string | undefined) ?? null, method: (req.body as { method?: string } | undefined)?.method ?? null });
    next();
  });
  outer.use(app);
  const server = await new Promise<Server>((resolve) => {
    const s = outer.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An A2A 1.0 server on SDK 1.x: answers each message with a completed task whose artifact echoes it. */
async function startV1Server(seen: Seen[]) {
  let base = '';
  const card = () =>
    AgentCard.fromJSON({
      name: 'v1 echo', description: 'echoes over A2A 1.0', version: '1.0.0',
      supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false, pushNotifications: false }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['echo'] }],
    });
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const text = context.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      bus.publish(AgentEvent.task(Task.fromJSON({
        id: context.taskId, contextId: context.contextId,
        status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
        artifacts: [{ artifactId: 'answer', name: 'answer', parts: [{ text: `v1 echo: ${text}` }] }],
      })));
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card() }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const listening = await listen(app, seen);
  base = listening.url;
  return listening;
}

/** An A2A 0.3 server on SDK 0.3: the same echo, in 0.3's shapes. */
async function startV03Server(seen: Seen[]) {
  let base = '';
  const card = () => ({
    protocolVersion: '0.3.0', name: 'v0.3 echo', description: 'echoes over A2A 0.3', version: '0.3.0', url: `${base}/`, preferredTransport: 'JSONRPC',
    capabilities: { streaming: false, pushNotifications: false }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['echo'] }],
  });
  const executor: AgentExecutorV03 = {
    async execute(context, bus) {
      const text = context.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      bus.publish({
        kind: 'task', id: context.taskId, contextId: context.contextId,
        status: { state: 'completed', timestamp: new Date().toISOString() },
        artifacts: [{ artifactId: 'answer', name: 'answer', parts: [{ kind: 'text', text: `v0.3 echo: ${text}` }] }],
      });
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandlerV03(card(), new InMemoryTaskStoreV03(), executor);
  // The card's url is known once the server listens: the handler reads it from the card object each time.
  const app = express();
  const listening = await listen(new A2AExpressApp(handler).setupRoutes(app), seen);
  base = listening.url;
  Object.assign(await handler.getAgentCard(), { url: `${base}/` });
  return listening;
}

describe('a2a: Roost calling servers built with the A2A SDKs, 1.x and 0.3', () => {
  let h: MessagingServer;
  let asker: Client;
  const v1Seen: Seen[] = [];
  const v03Seen: Seen[] = [];
  let v1: { server: Server; url: string };
  let v03: { server: Server; url: string };

  before(async () => {
    h = await startMessagingServer({ env: { ROOST_EXT_A2A_ALLOW_LOOPBACK: '1' } });
    const askerAgent = await namedAgent(h.server, undefined, 'asker');
    asker = await mcpClient(h.server, await sessionToken(h.server, undefined, askerAgent.id, null));
    [v1, v03] = await Promise.all([startV1Server(v1Seen), startV03Server(v03Seen)]);
    for (const [name, url] of [['sdk-v1', v1.url], ['sdk-v03', v03.url]]) {
      const res = await h.server.api('POST', '/api/a2a/remotes', { body: { name, url } });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await asker?.close();
    await Promise.all([v1, v03].filter(Boolean).map(({ server }) => new Promise((resolve) => server.close(resolve))));
    await h?.close();
  });

  it('an SDK 1.x server (A2A 1.0, no legacy compat): Roost reads supportedInterfaces and speaks 1.0', async () => {
    const result = await callTool(asker, 'svc_invoke_remote_agent', { url: v1.url, message: 'hello 1.0' });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.reply, 'v1 echo: hello 1.0');
    assert.equal(result.value.state, 'completed');
    assert.equal(result.value.remote.name, 'sdk-v1');
    const calls = v1Seen.filter((s) => s.method);
    assert.deepEqual([...new Set(calls.map((s) => s.method))].sort(), calls.some((s) => s.method === 'GetTask') ? ['GetTask', 'SendMessage'] : ['SendMessage']);
    assert.ok(calls.every((s) => s.version === '1.0'), 'every 1.0 call says its version');
    assert.ok(v1Seen.every((s) => s.authorization === null), 'a remote without a key gets no Authorization header');
  });

  it('an SDK 0.3 server: Roost reads its url and speaks 0.3', async () => {
    const result = await callTool(asker, 'svc_invoke_remote_agent', { url: v03.url, message: 'hello 0.3' });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.reply, 'v0.3 echo: hello 0.3');
    assert.equal(result.value.state, 'completed');
    const methods = new Set(v03Seen.filter((s) => s.method).map((s) => s.method));
    assert.ok(methods.has('message/send') && [...methods].every((m) => m === 'message/send' || m === 'tasks/get'), [...methods].join());
    assert.ok(v03Seen.every((s) => s.authorization === null && s.version === null));
  });
});
