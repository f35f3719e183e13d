// Every route this extension declares in plugin.toml, keyed as declared.
import type { RouteHandler } from '../_shared/extension.js';
import { remoteRoutes } from './routes-remotes.js';
import { taskRoutes } from './routes-tasks.js';

export const routes: Record<string, RouteHandler> = { ...taskRoutes, ...remoteRoutes };
