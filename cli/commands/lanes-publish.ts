// `roost lanes publish`: push the lanes repository in cwd to its origin.
import type { CommandHandler } from '../tree.js';
import { publishLanesRepo } from '../lanes/repo-publish.js';

export const handler: CommandHandler = async (_input, ctx) => {
  const published = await publishLanesRepo(ctx.cwd);
  const text = published.pushed
    ? `Published ${published.commits} commit${published.commits === 1 ? '' : 's'} of ${published.branch} to ${published.remote}.`
    : `Nothing to publish: ${published.branch} is up to date with ${published.remote}.`;
  return { data: { ...published }, text };
};
