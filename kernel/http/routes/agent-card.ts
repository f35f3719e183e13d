// GET /.well-known/agent-card.json: the A2A card of the server itself, public as A2A discovery expects.
// It says what this server offers — one skill per loaded extension, from its manifest — and names the A2A
// task endpoint (`url`, REST over HTTP+JSON) only while an extension serves it: a card may only advertise a
// URL that answers.
import type Router from '@koa/router';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

/** The A2A protocol version the cards follow (the agents extension's cards say the same). */
const A2A_PROTOCOL_VERSION = '0.2.5';
const A2A_SEND_ROUTE = { method: 'POST', path: '/a2a/tasks/send' };

export function registerAgentCardRoute(router: Router<State>, k: Kernel): void {
  router.get('/.well-known/agent-card.json', (ctx) => {
    const base = `${ctx.protocol}://${ctx.host}`;
    const loaded = k.registry.list().filter((ext) => ext.state !== 'unloaded');
    const servesTasks = loaded.some((ext) => ext.manifest.server?.routes.some((r) => r.method === A2A_SEND_ROUTE.method && r.path === A2A_SEND_ROUTE.path));
    ctx.body = {
      protocolVersion: A2A_PROTOCOL_VERSION,
      name: 'Roost',
      description: 'An agent orchestration server: agent sessions against hosted and local models, coordinated over REST, WebSocket and MCP',
      version: k.version,
      ...(servesTasks ? { url: `${base}/a2a`, preferredTransport: 'HTTP+JSON' } : {}),
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
