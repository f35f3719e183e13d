// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../../sdk/extension.js';
import type { Settler } from './settler.js';
import { federationRoutes } from './routes-federation.js';
import { listingRoutes } from './routes-listings.js';
import { reviewRoutes } from './routes-reviews.js';
import { useRoutes } from './routes-uses.js';

export const routes: Record<string, RouteHandler<Settler>> = { ...listingRoutes, ...useRoutes, ...reviewRoutes, ...federationRoutes };
