// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../../sdk/extension.js';
import { agentCreditRoutes } from './routes-agents.js';
import { escrowRoutes } from './routes-escrow.js';
import { internalRoutes } from './routes-internal.js';
import { settingsRoutes } from './routes-settings.js';
import { walletRoutes } from './routes-wallets.js';

export const routes: Record<string, RouteHandler> = { ...agentCreditRoutes, ...walletRoutes, ...settingsRoutes, ...internalRoutes, ...escrowRoutes };
