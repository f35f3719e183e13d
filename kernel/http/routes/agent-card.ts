// GET /.well-known/agent-card.json: the A2A card of the server itself, public as A2A discovery expects.
// It says what this server offers — one skill per loaded extension, from its manifest — and names no
// A2A endpoint: a card may only advertise a URL that answers, and this server serves no A2A tasks yet.
import type Router from '@koa/router';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

/** The A2A protocol version the cards follow (the agents extension's cards say the same). */
const A2A_PROTOCOL_VERSION = '0.2.5';

export function registerAgentCardRoute(router: Router<State>, k: Kernel): void {
  router.get('/.well-known/agent-card.json', (ctx) => {
    const base = `${ctx.protocol}://${ctx.host}`;
    ctx.body = {
      protocolVersion: A2A_PROTOCOL_VERSION,
      name: 'Roost',
      description: 'An agent orchestration server: agent sessions against hosted and local models, coordinated over REST, WebSocket and MCP',
      version: k.version,
      provider: { organization: 'Roost', url: base },
      capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      security: [{ bearer: [] }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: k.registry.list().filter((ext) => ext.state !== 'unloaded').map((ext) => ({
        id: ext.manifest.name,
        name: ext.manifest.name,
        description: ext.manifest.description || ext.manifest.name,
        tags: ext.manifest.server?.tools.map((tool) => tool.name) ?? [],
      })),
      metadata: { rest: `${base}/api`, mcp: `${base}/mcp`, websocket: `${base.replace(/^http/, 'ws')}/ws` },
    };
  });
}
