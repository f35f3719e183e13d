// The code-host tools for agents. Every one that names a repository is refused when the tenant
// blocked it; the privileged ones (star, unstar, fork, follow) need the agent's grant, which the
// kernel checks before the call reaches here.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import { hostError, octokit, ownerRepo } from './client.js';
import { Lists } from './lists.js';
import { checkNotBlocked, openPull } from './pulls.js';

type Args = Record<string, unknown>;

const data = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: (Array.isArray(value) ? { items: value } : value) as Record<string, unknown> });

/** A tool over one repository: the blocklist first, then the code host; its failures named. */
function repoTool(what: string, run: (ctx: ExtensionContext, target: { owner: string; repo: string }, args: Args) => Promise<unknown>): ToolHandler {
  return async (args, caller, ctx) => {
    const repo = String(args.repo);
    await checkNotBlocked(ctx, caller.tenantId, repo);
    try {
      return data(await run(ctx, ownerRepo(repo), args));
    } catch (err) {
      throw hostError(err, `${what} ${repo}`);
    }
  };
}

const pr = (p: { number: number; title: string; state: string; html_url: string; head: { ref: string }; base: { ref: string }; draft?: boolean }) =>
  ({ number: p.number, title: p.title, state: p.state, url: p.html_url, head: p.head.ref, base: p.base.ref, draft: p.draft ?? false });

export const tools: Record<string, ToolHandler> = {
  svc_repo_info: repoTool('reading', async (ctx, target) => {
    const { data: r } = await octokit(ctx).repos.get(target);
    return { fullName: r.full_name, defaultBranch: r.default_branch, private: r.private, description: r.description ?? null, stars: r.stargazers_count ?? 0, openIssues: r.open_issues_count ?? 0 };
  }),
  svc_list_prs: repoTool('listing pull requests of', async (ctx, target, args) => {
    const { data: list } = await octokit(ctx).pulls.list({ ...target, state: (args.state as 'open' | 'closed' | 'all' | undefined) ?? 'open', per_page: 100 });
    return { pulls: list.map(pr) };
  }),
  async svc_create_pr(args, caller, ctx) {
    return data(await openPull(ctx, caller.tenantId, args as never));
  },
  svc_review_pr: repoTool('reviewing a pull request of', async (ctx, target, args) => {
    const { data: review } = await octokit(ctx).pulls.createReview({ ...target, pull_number: Number(args.number), event: args.event as 'APPROVE', body: (args.body as string | undefined) ?? '' });
    return { id: review.id, state: review.state };
  }),
  svc_get_pr_diff: repoTool('reading the diff of a pull request of', async (ctx, target, args) => {
    const reply = await octokit(ctx).pulls.get({ ...target, pull_number: Number(args.number), mediaType: { format: 'diff' } });
    const diff = String(reply.data as unknown);
    return { number: args.number, diff: diff.slice(0, 200_000), truncated: diff.length > 200_000 };
  }),
  svc_comment_on_pr: repoTool('commenting on a pull request of', async (ctx, target, args) => {
    const { data: comment } = await octokit(ctx).issues.createComment({ ...target, issue_number: Number(args.number), body: String(args.body) });
    return { id: comment.id, url: comment.html_url };
  }),
  svc_list_issues: repoTool('listing issues of', async (ctx, target, args) => {
    const { data: list } = await octokit(ctx).issues.listForRepo({ ...target, state: (args.state as 'open' | undefined) ?? 'open', per_page: 100 });
    return { issues: list.map((i) => ({ number: i.number, title: i.title, state: i.state, user: i.user?.login ?? null })) };
  }),
  svc_create_issue: repoTool('opening an issue on', async (ctx, target, args) => {
    const { data: issue } = await octokit(ctx).issues.create({ ...target, title: String(args.title), body: (args.body as string | undefined) ?? '' });
    return { number: issue.number, url: issue.html_url };
  }),
  svc_star_repo: repoTool('starring', async (ctx, target) => {
    await octokit(ctx).activity.starRepoForAuthenticatedUser(target);
    return { starred: `${target.owner}/${target.repo}` };
  }),
  svc_unstar_repo: repoTool('unstarring', async (ctx, target) => {
    await octokit(ctx).activity.unstarRepoForAuthenticatedUser(target);
    return { unstarred: `${target.owner}/${target.repo}` };
  }),
  svc_fork_repo: repoTool('forking', async (ctx, target) => {
    const { data: fork } = await octokit(ctx).repos.createFork(target);
    return { fork: fork.full_name, url: fork.html_url };
  }),
  async svc_follow_user(args, _caller, ctx) {
    const username = String(args.username);
    try {
      await octokit(ctx).users.follow({ username });
    } catch (err) {
      throw hostError(err, `following ${username}`);
    }
    return data({ following: username });
  },
  async svc_repo_blocklist(args, caller, ctx) {
    const lists = new Lists(ctx.db);
    if (args.action === 'list') return data({ entries: await lists.blocklist(caller.tenantId) });
    if (typeof args.repo !== 'string') throw new RoostError('VALIDATION_ERROR', `repo is required to ${String(args.action)} an entry`);
    // An agent may add a repository to keep itself and others away; only a person lifts a block.
    if (args.action === 'remove') throw new RoostError('FORBIDDEN', 'agents cannot remove a blocklist entry; a person does it with DELETE /api/repo-blocklist/:repo');
    const { entry } = await lists.block(caller.tenantId, args.repo, typeof args.reason === 'string' ? args.reason : `added by agent ${caller.agentId ?? 'unknown'}`);
    ctx.host.audit('codehost.repo_blocked', `repo:${entry.repo}`, { agentId: caller.agentId, reason: entry.reason });
    return data(entry);
  },
};
