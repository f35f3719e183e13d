// `roost work push [--message M]`
import type { CommandHandler } from '../tree.js';
import { pushWork } from '../work/push.js';

export const handler: CommandHandler = async ({ options }, ctx) => {
  const pushed = await pushWork(ctx, { message: options.message === undefined ? undefined : String(options.message) });
  const committed = pushed.committed ? `Committed ${pushed.files} file${pushed.files === 1 ? '' : 's'} ("${pushed.message}"). ` : '';
  const text = pushed.pushed
    ? `${committed}Pushed ${pushed.commits} commit${pushed.commits === 1 ? '' : 's'} of ${pushed.branch} to origin.`
    : `Nothing to push: ${pushed.branch} is up to date with origin.`;
  const pull = pushed.pullRequest;
  const linked = pull ? (pull.created ? ` Opened pull request #${pull.number} (${pull.url}), closing #${pushed.issue}.` : ' Its pull request is already open.') : '';
  return { data: pushed, text: text + linked };
};
