// Which repository and branch a github command works on: --repo / the origin remote, and the branch
// the project is on, from the host's metadata.
import { parseRemote } from '../../lib/git-remote.js';
import { RoostError } from '../../protocol/errors.js';
import type { PluginContext } from '../../sdk/plugin-client.js';

export interface RepoContext {
  owner: string;
  repo: string;
  branch: string | null;
  root: string;
}

export async function repoContext(ctx: PluginContext, repoFlag: string | undefined): Promise<RepoContext> {
  const meta = await ctx.host.metadata(['root', 'git']);
  const git = (meta.git ?? null) as { branch?: string | null; remote_url?: string | null } | null;
  const root = typeof meta.root === 'string' ? meta.root : process.cwd();
  let slug: { owner: string; repo: string } | undefined;
  if (repoFlag !== undefined) {
    const [owner, repo, extra] = repoFlag.split('/');
    if (!owner || !repo || extra !== undefined) throw new RoostError('USAGE', `--repo "${repoFlag}" must have the form owner/name`);
    slug = { owner, repo };
  } else {
    if (!git?.remote_url) throw new RoostError('USAGE', 'no origin remote to take the repository from; pass --repo owner/name');
    slug = parseRemote(git.remote_url);
    if (!slug) throw new RoostError('USAGE', `cannot tell owner/name from the origin remote (${git.remote_url}); pass --repo owner/name`);
  }
  return { ...slug, branch: git?.branch ?? null, root };
}

export const repoPath = (r: RepoContext) => `/repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;
