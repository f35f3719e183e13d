// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../../sdk/extension.js';
import type { AgentsState } from './context.js';
import { agentRoutes } from './routes-agents.js';
import { bundleRoutes } from './routes-bundles.js';
import { interactionRoutes } from './routes-interaction.js';

export const routes: Record<string, RouteHandler<AgentsState>> = { ...agentRoutes, ...bundleRoutes, ...interactionRoutes };
