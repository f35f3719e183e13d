// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../../sdk/extension.js';
import { A2A_BINDING } from '../agents/contract.js';
import type { A2AState } from './context.js';
import { serveJsonRpc } from './jsonrpc.js';
import { restRoutes } from './rest-v1.js';
import { remoteRoutes } from './routes-remotes.js';
import { serveServerCard } from './server-card.js';
import { taskRoutes } from './routes-tasks.js';

export const routes: Record<string, RouteHandler<A2AState>> = {
  ...taskRoutes,
  ...remoteRoutes,
  'GET /.well-known/agent-card.json': serveServerCard,
  'POST /a2a': (req, ctx, state) => serveJsonRpc(req, ctx, state),
  /** The binding agents' cards advertise (the agents contract defines it; a card names it while this route is declared). */
  [`POST ${A2A_BINDING.path}`]: (req, ctx, state) => serveJsonRpc(req, ctx, state, req.params.id!),
  /** A2A 1.0's HTTP+JSON binding, for the server and for each agent (the cards' supportedInterfaces). */
  ...restRoutes('/a2a/v1'),
  ...restRoutes(`${A2A_BINDING.path}/v1`),
};
