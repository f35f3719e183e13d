// `roost github prs create [--fill] [--title t] [--body b] [--base b] [--head h] [--draft] [--repo o/n] [--json]`
// opens a pull request for the current branch. --fill takes the title and body from the branch's
// commits the way `gh pr create --fill` does: one commit gives its subject and body; several give the
// branch name as title and the list of subjects as body. Push the branch first (roost work push).
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin, type PluginContext } from '../../sdk/plugin-client.js';
import { GitHubApi } from './api.js';
import { repoContext, repoPath, type RepoContext } from './repo.js';

interface PullRequest {
  number: number;
  html_url: string;
  title: string;
  body: string | null;
  draft?: boolean;
  head: { ref: string };
  base: { ref: string };
}

const BRANCH = /^[\w][\w./-]*$/;

const USAGE = 'usage: roost github prs create [--fill] [--title <t>] [--body <b>] [--base <b>] [--head <h>] [--draft] [--repo <owner/name>] [--json]\n  --fill  title and body from the commits of the branch';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    fill: { type: 'boolean' },
    title: { type: 'string' },
    body: { type: 'string' },
    base: { type: 'string' },
    head: { type: 'string' },
    draft: { type: 'boolean' },
    repo: { type: 'string' },
    json: { type: 'boolean' },
  });
  const api = GitHubApi.fromEnv(process.env);
  const repo = await repoContext(ctx, values.repo);
  const head = values.head ?? repo.branch;
  if (!head) throw new RoostError('USAGE', 'not on a branch; pass --head <branch>');
  const base = values.base ?? (await api.request<{ default_branch: string }>('GET', repoPath(repo))).default_branch;
  for (const branch of [head, base]) {
    if (!BRANCH.test(branch)) throw new RoostError('USAGE', `"${branch}" is not a branch name roost can use`);
  }
  if (head === base) throw new RoostError('USAGE', `the head branch ${head} is the base branch; start a branch first (roost work start)`);

  const filled = values.fill ? await fromCommits(ctx, repo, base, head) : undefined;
  const title = values.title ?? filled?.title ?? (await ctx.prompt('Title of the pull request'));
  if (title.trim() === '') throw new RoostError('USAGE', 'a pull request needs a title (--title or --fill)');
  const body = values.body ?? filled?.body ?? '';
  const pr = await api.request<PullRequest>('POST', `${repoPath(repo)}/pulls`, { title, body, head, base, draft: Boolean(values.draft) });
  const result = { number: pr.number, url: pr.html_url, title: pr.title, body: pr.body ?? '', head: pr.head.ref, base: pr.base.ref, draft: pr.draft ?? false };
  if (values.json) ctx.json({ repository: `${repo.owner}/${repo.repo}`, pullRequest: result });
  else ctx.print(`Opened pull request #${result.number}: ${result.url}\n  ${result.title} (${head} -> ${base})`);
  return 0;
}, USAGE);

async function fromCommits(ctx: PluginContext, repo: RepoContext, base: string, head: string): Promise<{ title: string; body: string }> {
  const remoteBase = await ctx.host.exec(`git rev-parse --verify -q 'refs/remotes/origin/${base}'`, { cwd: repo.root });
  const localBase = remoteBase.code === 0 ? remoteBase : await ctx.host.exec(`git rev-parse --verify -q 'refs/heads/${base}'`, { cwd: repo.root });
  if (localBase.code === 126) throw new RoostError('CAPABILITY_DENIED', localBase.stderr.trim());
  if (localBase.code !== 0) throw new RoostError('VALIDATION_ERROR', `base branch ${base} is not known locally; git fetch origin ${base}`);
  const range = `${localBase.stdout.trim()}..HEAD`;
  const log = await ctx.host.exec(`git log --reverse --format=%x1e%s%x1f%b ${range}`, { cwd: repo.root });
  if (log.code !== 0) throw new RoostError('VALIDATION_ERROR', `git log failed: ${log.stderr.trim()}`);
  const commits = log.stdout.split('\x1e').slice(1).map((record) => {
    const [subject, body] = record.split('\x1f');
    return { subject: subject!.trim(), body: (body ?? '').trim() };
  });
  if (commits.length === 0) throw new RoostError('VALIDATION_ERROR', `${head} has no commits that are not on ${base}`);
  if (commits.length === 1) return { title: commits[0]!.subject, body: commits[0]!.body };
  return { title: humanise(head), body: commits.map((c) => `- ${c.subject}`).join('\n') };
}

/** "alice/feat/better-search" → "Better search". */
function humanise(branch: string): string {
  const words = (branch.split('/').pop() ?? branch).replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
