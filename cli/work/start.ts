// `work start`: from a clean tree, create <author>/<kind>/<name> at HEAD and push it with upstream.
import { RoostError } from '../../protocol/errors.js';
import type { CliContext } from '../context.js';
import { usageError } from '../output.js';
import { branchName, slug } from './branch.js';
import { changedPaths, currentBranch, git, gitTry, refExists, remoteUrl, repoRoot } from './git.js';
import { TOKEN_HINT } from '../vcshost.js';
import { runPrePushHooks } from './hooks.js';
import { readIssue, rememberIssue } from './issue.js';

export interface StartOptions {
  /** Optional with --issue and a code-host token: the issue's title names the branch. */
  name?: string;
  kind?: string;
  issue?: string;
}

export async function startWork(cli: CliContext, options: StartOptions) {
  const kind = slug(options.kind ?? 'feat');
  if (kind === '') throw usageError(`--kind "${options.kind}" has no letters or digits`);
  let issue: number | undefined;
  if (options.issue !== undefined) {
    if (!/^[1-9]\d{0,9}$/.test(options.issue)) throw usageError(`--issue must be a positive whole number, got "${options.issue}"`);
    issue = Number(options.issue);
  }

  const root = await repoRoot(cli.cwd);
  const linked = issue === undefined ? null : await readIssue(root, issue);
  if (options.name === undefined && !linked) {
    throw usageError(issue === undefined ? 'work start needs a name' : `work start needs a name, or ${TOKEN_HINT} to take it from issue #${issue}`);
  }
  const name = slug(options.name ?? linked!.title);
  if (name === '') throw usageError(`branch name "${options.name ?? linked!.title}" has no letters or digits`);
  const author = slug((await gitTry(root, ['config', 'user.name'])).stdout);
  if (author === '') throw new RoostError('NO_AUTHOR', 'git user.name is not set; set it with: git config --global user.name "Your Name"');
  const changed = await changedPaths(root, { untracked: false });
  if (changed.length > 0) {
    throw new RoostError('DIRTY_TREE', `uncommitted changes (${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}); commit or stash them before starting new work`);
  }
  const remote = await remoteUrl(root);
  const branch = branchName(author, kind, name, issue);
  if (await refExists(root, `refs/heads/${branch}`)) throw new RoostError('CONFLICT', `branch ${branch} already exists`);
  const base = await currentBranch(root).catch(() => 'HEAD');

  const hooks = await runPrePushHooks({ cwd: root, log: cli.log, branch, remote: 'origin' });
  await git(root, ['switch', '-q', '-c', branch]);
  if (issue !== undefined) await rememberIssue(root, branch, { number: issue, ...(linked ? { title: linked.title } : {}) });
  try {
    await git(root, ['push', '-q', '-u', 'origin', `${branch}:refs/heads/${branch}`]);
  } catch (err) {
    throw new RoostError('GIT_ERROR', `created ${branch} locally but could not push it: ${(err as Error).message}`);
  }
  const commit = await git(root, ['rev-parse', 'HEAD']);
  return { branch, author, kind, name, ...(issue !== undefined ? { issue } : {}), ...(linked ? { issueTitle: linked.title, issueUrl: linked.url } : {}), base, remote, upstream: `origin/${branch}`, commit, hooksRan: hooks.ran };
}
