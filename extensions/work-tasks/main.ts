// The work-tasks extension: an agent on a dedicated branch, from a request to a validated pull request.
import { join } from 'node:path';
import { validate } from '../../protocol/validate.js';
import { runExtension } from '../../sdk/extension.js';
import { VCSHOST_EVENTS, type PullStateEvent } from '../vcshost/contract.js';
import { readConfig } from './config.js';
import { Engine } from './engine.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';
import { ws } from './ws.js';

runExtension({
  migrations,
  routes,
  tools,
  ws,
  setup(ctx) {
    const engine = new Engine(ctx, readConfig(ctx));
    engine.start();
    return engine;
  },
  async shutdown(_ctx, engine) {
    await engine.stop();
  },
  async event({ topic, payload, tenantId }, ctx, engine) {
    // The code host said a pull request was merged, closed or reopened: the tasks that opened it record it.
    if (topic !== VCSHOST_EVENTS.pullState || !tenantId) return;
    const pull = validate<PullStateEvent>(join(ctx.init.plugin.dir, 'schemas', 'pull-state.json'), payload);
    await engine.pullState(tenantId, pull.repo.toLowerCase(), pull.number, pull.state);
  },
});
