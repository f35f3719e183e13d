// `work push`: commit every change on the current branch and push it to origin — never on the default
// branch, never forced, and only after the pre_push hooks pass (a failing hook leaves the changes as they are).
import { RoostError } from '../../protocol/errors.js';
import type { CliContext } from '../context.js';
import { defaultCommitMessage } from './branch.js';
import { changedPaths, countCommits, currentBranch, git, gitTry, refExists, remoteUrl, repoRoot } from './git.js';
import { runPrePushHooks } from './hooks.js';
import { openLinkedPull, rememberedIssue } from './issue.js';

export async function pushWork(cli: CliContext, options: { message?: string }) {
  const root = await repoRoot(cli.cwd);
  const branch = await currentBranch(root);
  const defaults = await defaultBranches(root);
  if (defaults.includes(branch)) {
    throw new RoostError('DEFAULT_BRANCH', `refusing to push the default branch ${branch}; start a work branch with: roost work start <name>`);
  }
  const remote = await remoteUrl(root);
  const issue = await rememberedIssue(root, branch);
  const message = options.message ?? defaultCommitMessage(branch, issue?.title);
  if (message.trim() === '') throw new RoostError('USAGE', '--message is empty');

  const hooks = await runPrePushHooks({ cwd: root, log: cli.log, branch, remote: 'origin' });
  const changed = await changedPaths(root, { untracked: true });
  if (changed.length > 0) {
    await git(root, ['add', '-A']);
    await git(root, ['commit', '-q', '-m', message]);
  }
  const tracking = `refs/remotes/origin/${branch}`;
  const ahead = (await refExists(root, tracking)) ? await countCommits(root, `${tracking}..HEAD`) : await countCommits(root, 'HEAD');
  if (ahead > 0) await git(root, ['push', '-q', '-u', 'origin', `${branch}:refs/heads/${branch}`]);
  const commit = await git(root, ['rev-parse', 'HEAD']);
  // A branch started for an issue gets its pull request, linked so merging it closes the issue.
  const pullRequest = issue ? await openLinkedPull(root, branch, issue.number, defaultCommitMessage(branch, issue.title)) : null;
  return {
    branch, remote, commit, committed: changed.length > 0, ...(changed.length > 0 ? { message } : {}),
    files: changed.length, pushed: ahead > 0, commits: ahead, hooksRan: hooks.ran,
    ...(issue ? { issue: issue.number, pullRequest } : {}),
  };
}

/** main, master, and whatever origin's HEAD points at. */
async function defaultBranches(root: string): Promise<string[]> {
  const head = await gitTry(root, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  const names = ['main', 'master'];
  if (head.exitCode === 0 && head.stdout.startsWith('origin/')) names.push(head.stdout.slice('origin/'.length));
  return names;
}
