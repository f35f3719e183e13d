// `roost lanes create <name>`: a new lanes repository in ./<name>.
import type { CommandHandler } from '../tree.js';
import { TOKEN_HINT } from '../vcshost.js';
import { createLanesRepo } from '../lanes/repo-create.js';

export const handler: CommandHandler = async ({ args }, ctx) => {
  const created = await createLanesRepo(ctx.cwd, args[0]!);
  return {
    data: { ...created },
    text: `Created lanes repository ${created.path} (${created.files.join(', ')}, commit ${created.commit.slice(0, 7)}).\n` +
      (created.remote
        ? `Created ${created.remote.fullName} on the code host (${created.remote.htmlUrl}) as origin.\nNext: cd ${created.name} && roost lanes publish`
        : `No remote: ${TOKEN_HINT} to have lanes create make it, or add one: git -C ${created.name} remote add origin <url> && (cd ${created.name} && roost lanes publish)`),
  };
};
