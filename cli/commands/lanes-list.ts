// `roost lanes list`: the lanes of this project, local and imported.
import type { CommandHandler } from '../tree.js';
import { findProjectRoot } from '../../lib/project/detect.js';
import { loadLanes } from '../lanes/config.js';

export const handler: CommandHandler = async (_input, ctx) => {
  const root = findProjectRoot(ctx.cwd);
  const set = loadLanes(root);
  const lanes = [...set.lanes.values()].map((l) => ({
    name: l.name, description: l.description, source: l.source, failFast: l.failFast, steps: l.steps.length,
  }));
  for (const s of set.shadowed) ctx.log(`roost: lane "${s.name}" from ${s.source} is hidden by the one from ${s.by}`);
  const width = Math.max(0, ...lanes.map((l) => l.name.length));
  const text = lanes.length === 0
    ? `No lanes in ${root} (add lanes.toml or run roost lanes import <org>/<repo>).`
    : lanes.map((l) => `${l.name.padEnd(width)}  ${l.description}${l.source === 'local' ? '' : `  [${l.source}]`}`.trimEnd()).join('\n');
  return { data: { root, lanes, shadowed: set.shadowed }, text };
};
