// GET /.well-known/agent-card.json: the A2A card of the server itself, public as A2A discovery expects.
// It says what this server offers — one skill per loaded extension, from its manifest — and names the A2A
// endpoint (`url`, the JSON-RPC binding, POST /a2a) only while an extension serves it: a card may only
// advertise a URL that answers. Roost's own REST routes for tasks are named under metadata.a2a.
import type Router from '@koa/router';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

/** The A2A protocol version the cards follow (the a2a extension's binding, and so the agents' cards, say the same). */
const A2A_PROTOCOL_VERSION = '0.3.0';
const A2A_JSONRPC_ROUTE = { method: 'POST', path: '/a2a' };
const A2A_SEND_ROUTE = { method: 'POST', path: '/a2a/tasks/send' };

export function registerAgentCardRoute(router: Router<State>, k: Kernel): void {
  router.get('/.well-known/agent-card.json', (ctx) => {
    const base = `${ctx.protocol}://${ctx.host}`;
    const loaded = k.registry.list().filter((ext) => ext.state !== 'unloaded');
    const serves = (route: { method: string; path: string }) => loaded.some((ext) => ext.manifest.server?.routes.some((r) => r.method === route.method && r.path === route.path));
    const servesJsonRpc = serves(A2A_JSONRPC_ROUTE);
    const servesTasks = serves(A2A_SEND_ROUTE);
    ctx.body = {
      protocolVersion: A2A_PROTOCOL_VERSION,
      name: 'Roost',
      description: 'An agent orchestration server: agent sessions against hosted and local models, coordinated over REST, WebSocket and MCP',
      version: k.version,
      ...(servesJsonRpc ? { url: `${base}/a2a`, preferredTransport: 'JSONRPC', additionalInterfaces: [{ url: `${base}/a2a`, transport: 'JSONRPC' }] } : {}),
      provider: { organization: 'Roost', url: base },
      capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      security: [{ bearer: [] }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: loaded.map((ext) => ({
        id: ext.manifest.name,
        name: ext.manifest.name,
        description: ext.manifest.description || ext.manifest.name,
        tags: ext.manifest.server?.tools.map((tool) => tool.name) ?? [],
      })),
      metadata: {
        rest: `${base}/api`,
        mcp: `${base}/mcp`,
        websocket: `${base.replace(/^http/, 'ws')}/ws`,
        ...(servesTasks ? { a2a: { send: `${base}${A2A_SEND_ROUTE.path}`, task: `${base}/a2a/tasks/{id}` } } : {}),
      },
    };
  });
}
