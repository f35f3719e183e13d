// The work-tasks extension: an agent on a dedicated branch, from a request to a validated pull request.
import { runExtension } from '../_shared/extension.js';
import { readConfig } from './config.js';
import { Engine } from './engine.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { engine, setEngine } from './state.js';
import { tools } from './tools.js';
import { ws } from './ws.js';

runExtension({
  migrations,
  routes,
  tools,
  ws,
  setup(ctx) {
    const created = new Engine(ctx, readConfig(ctx));
    setEngine(created);
    created.start();
  },
  async shutdown() {
    await engine().stop();
  },
});
