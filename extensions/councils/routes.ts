// Every route of the extension, keyed as the manifest declares them.
import type { RouteHandler } from '../../sdk/extension.js';
import type { LaunchRunner } from './runner.js';
import { councilRoutes } from './routes-councils.js';
import { launchRoutes } from './routes-launches.js';

export const routes: Record<string, RouteHandler<LaunchRunner>> = { ...councilRoutes, ...launchRoutes };
