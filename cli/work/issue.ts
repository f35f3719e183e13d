// The work flow's link to the code host: `work start --issue N` reads the issue (its title names the
// branch and the commit template) and remembers it on the branch; `work push` opens the pull request that
// closes it. The repository is the one `origin` names (owner/repo from its URL, as the github plugin reads it).
import type { Octokit } from '@octokit/rest';
import { parseRemote } from '../../lib/git-remote.js';
import { RoostError } from '../../protocol/errors.js';
import { codeHost, codeHostError } from '../vcshost.js';
import { git, gitTry } from './git.js';

export interface LinkedIssue {
  number: number;
  title: string;
  url: string;
}

/** The issue on the code host, or null without a token. */
export async function readIssue(root: string, number: number): Promise<LinkedIssue | null> {
  const host = await hostAndRepo(root);
  if (!host) return null;
  try {
    const { data } = await host.octokit.rest.issues.get({ owner: host.owner, repo: host.repo, issue_number: number });
    return { number, title: data.title, url: data.html_url };
  } catch (err) {
    throw codeHostError(`reading issue #${number} of ${host.owner}/${host.repo}`, err);
  }
}

/** Kept in the branch's git config, so `work push` knows the issue without asking again. */
export async function rememberIssue(root: string, branch: string, issue: { number: number; title?: string }): Promise<void> {
  await git(root, ['config', `branch.${branch}.roost-issue`, String(issue.number)]);
  if (issue.title !== undefined) await git(root, ['config', `branch.${branch}.roost-issue-title`, issue.title]);
}

export async function rememberedIssue(root: string, branch: string): Promise<{ number: number; title?: string } | null> {
  const number = await gitTry(root, ['config', '--get', `branch.${branch}.roost-issue`]);
  if (number.exitCode !== 0 || !/^\d+$/.test(number.stdout)) return null;
  const title = await gitTry(root, ['config', '--get', `branch.${branch}.roost-issue-title`]);
  return { number: Number(number.stdout), ...(title.exitCode === 0 ? { title: title.stdout } : {}) };
}

/** Opens the branch's pull request with "Closes #N" in its body (null without a token); one already open is kept. */
export async function openLinkedPull(root: string, branch: string, issue: number, title: string): Promise<{ number: number | null; url: string | null; created: boolean } | null> {
  const host = await hostAndRepo(root);
  if (!host) return null;
  try {
    const { data: repo } = await host.octokit.rest.repos.get({ owner: host.owner, repo: host.repo });
    const base = repo.default_branch;
    const { data } = await host.octokit.rest.pulls.create({ owner: host.owner, repo: host.repo, head: branch, base, title, body: `Closes #${issue}` });
    return { number: data.number, url: data.html_url, created: true };
  } catch (err) {
    const errors = (err as { response?: { data?: { errors?: Array<{ message?: string }> } } }).response?.data?.errors ?? [];
    if (errors.some((e) => /already exists/i.test(e.message ?? ''))) return { number: null, url: null, created: false };
    throw codeHostError(`opening the pull request of ${branch}`, err);
  }
}

async function hostAndRepo(root: string): Promise<{ octokit: Octokit; owner: string; repo: string } | null> {
  const octokit = await codeHost();
  if (!octokit) return null;
  // The URL as configured: git's url.<base>.insteadOf rewrites apply to fetch and push, not to the name.
  const url = (await gitTry(root, ['config', '--get', 'remote.origin.url'])).stdout;
  const slug = parseRemote(url);
  if (!slug) throw new RoostError('USAGE', `cannot tell owner/name on the code host from the origin remote (${url || 'none'})`);
  return { octokit, ...slug };
}
