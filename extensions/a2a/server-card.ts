// GET /.well-known/agent-card.json: the A2A card of the server itself, public as A2A discovery expects.
// It says what this server offers — one skill per loaded extension, from its manifest (the `extensions`
// host message) — and names this extension's JSON-RPC endpoint (POST /a2a) and task routes, which answer
// whenever the card does: the card is served by the extension that serves them. One card for both A2A
// versions: 0.3 clients read `url`/`preferredTransport`/`additionalInterfaces`, 1.0 clients read
// `supportedInterfaces` (each interface with its binding and version; the first, 1.0's JSON-RPC, preferred).
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { A2A_BINDING, a2aInterfaces } from '../agents/contract.js';

export const serveServerCard: RouteHandler = async (req, ctx) => {
  // The address the caller reached the server by (a raw route sees the Host header).
  const base = `http://${req.headers.host}`;
  const loaded = await ctx.host.extensions();
  return ok({
    protocolVersion: A2A_BINDING.protocolVersion,
    name: 'Roost',
    description: 'An agent orchestration server: agent sessions against hosted and local models, coordinated over REST, WebSocket and MCP',
    version: ctx.init.host.version,
    url: `${base}/a2a`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: `${base}/a2a`, transport: 'JSONRPC' }],
    supportedInterfaces: a2aInterfaces(`${base}/a2a`),
    provider: { organization: 'Roost', url: base },
    capabilities: A2A_BINDING.capabilities,
    // 0.3's spelling of the scheme, which 1.0 clients read too; 1.0 names its requirements securityRequirements.
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    security: [{ bearer: [] }],
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: loaded.map((ext) => ({ id: ext.name, name: ext.name, description: ext.description || ext.name, tags: ext.tools })),
    metadata: {
      rest: `${base}/api`,
      mcp: `${base}/mcp`,
      websocket: `${base.replace(/^http/, 'ws')}/ws`,
      a2a: { send: `${base}/a2a/tasks/send`, task: `${base}/a2a/tasks/{id}` },
    },
  });
};
