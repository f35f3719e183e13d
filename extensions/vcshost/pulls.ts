// Opening a pull request, checked against the tenant's blocklist first. Opening the same head twice
// answers the pull request already open (a work task resumed after a restart asks again).
import { forbidden } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { hostError, octokit, ownerRepo } from './client.js';
import { Lists } from './lists.js';
import type { OpenPullRequest } from './contract.js';

export async function checkNotBlocked(ctx: ExtensionContext, tenantId: string, repo: string): Promise<void> {
  const entry = await new Lists(ctx.db).blockedBy(tenantId, repo);
  if (entry) throw forbidden(`repository ${repo} is on the blocklist (${entry}): agents may not touch it`);
}

export type PullInput = OpenPullRequest;

export async function openPull(ctx: ExtensionContext, tenantId: string, input: PullInput) {
  await checkNotBlocked(ctx, tenantId, input.repo);
  const client = octokit(ctx);
  const target = ownerRepo(input.repo);
  try {
    const base = input.base ?? (await client.repos.get(target)).data.default_branch;
    const { data } = await client.pulls.create({ ...target, title: input.title, body: input.body ?? '', head: input.head, base, draft: input.draft ?? false });
    return { number: data.number, url: data.html_url, state: data.state, created: true };
  } catch (err) {
    if ((err as { status?: number }).status === 422) {
      const { data } = await client.pulls.list({ ...target, head: `${target.owner}:${input.head}`, state: 'open' }).catch(() => ({ data: [] as Array<{ number: number; html_url: string; state: string; head: { ref: string } }> }));
      const open = data.find((p) => p.head.ref === input.head);
      if (open) return { number: open.number, url: open.html_url, state: open.state, created: false };
    }
    throw hostError(err, `opening a pull request on ${input.repo}`);
  }
}
