// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../_shared/extension.js';
import { ok } from '../_shared/http.js';
import { A2A_PROTOCOL_VERSION, serveJsonRpc } from './jsonrpc.js';
import { remoteRoutes } from './routes-remotes.js';
import { serveServerCard } from './server-card.js';
import { taskRoutes } from './routes-tasks.js';

export const routes: Record<string, RouteHandler> = {
  ...taskRoutes,
  ...remoteRoutes,
  'GET /.well-known/agent-card.json': serveServerCard,
  'POST /a2a': (req, ctx) => serveJsonRpc(req, ctx),
  'POST /a2a/agents/:id': (req, ctx) => serveJsonRpc(req, ctx, req.params.id!),
  /** What an agent's card advertises (the agents extension asks, so a card names only an endpoint that answers). */
  'GET /api/internal/a2a/interface': () => ok({ protocolVersion: A2A_PROTOCOL_VERSION, transport: 'JSONRPC', agentPath: '/a2a/agents/{agentId}' }),
};
