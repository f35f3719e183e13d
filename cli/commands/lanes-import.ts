// `roost lanes import <org>/<repo>`: make a shared lanes repository's lanes available here.
import type { CommandHandler } from '../tree.js';
import { findProjectRoot } from '../../lib/project/detect.js';
import { importLanesRepo } from '../lanes/repo-import.js';

export const handler: CommandHandler = async ({ args }, ctx) => {
  const imported = await importLanesRepo(findProjectRoot(ctx.cwd), args[0]!);
  for (const s of imported.shadowed) ctx.log(`roost: lane "${s.name}" of ${imported.repository} is hidden by the one from ${s.by}`);
  const text = `${imported.updated ? 'Updated' : 'Imported'} ${imported.repository} into ${imported.path}: ` +
    `${imported.lanes.length > 0 ? `lanes ${imported.lanes.join(', ')}` : 'no new lanes'}.`;
  return { data: { ...imported }, text };
};
