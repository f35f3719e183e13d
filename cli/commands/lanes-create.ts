// `roost lanes create <name>`: a new lanes repository in ./<name>.
import type { CommandHandler } from '../tree.js';
import { createLanesRepo } from '../lanes/repo-create.js';

export const handler: CommandHandler = async ({ args }, ctx) => {
  const created = await createLanesRepo(ctx.cwd, args[0]!);
  return {
    data: { ...created },
    text: `Created lanes repository ${created.path} (${created.files.join(', ')}, commit ${created.commit.slice(0, 7)}).\n` +
      `Next: git -C ${created.name} remote add origin <url> && (cd ${created.name} && roost lanes publish)`,
  };
};
