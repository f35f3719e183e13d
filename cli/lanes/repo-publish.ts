// `lanes publish`: pushes the lanes repository in cwd to origin. Never forced: a repository behind its
// origin is refused, as is one with uncommitted changes or an invalid lanes.toml.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { changedPaths, countCommits, currentBranch, git, refExists, remoteUrl, repoRoot } from '../work/git.js';
import { readLanesFile } from './config.js';

export interface Published {
  root: string;
  remote: string;
  branch: string;
  commit: string;
  pushed: boolean;
  commits: number;
}

export async function publishLanesRepo(cwd: string): Promise<Published> {
  const root = await repoRoot(cwd);
  const lanesFile = join(root, 'lanes.toml');
  if (!existsSync(lanesFile)) throw new RoostError('NOT_FOUND', `${root} has no lanes.toml; is this a lanes repository? (roost lanes create <name>)`);
  readLanesFile(lanesFile, root);
  const remote = await remoteUrl(root);
  const branch = await currentBranch(root);
  const changed = await changedPaths(root, { untracked: true });
  if (changed.length > 0) {
    throw new RoostError('DIRTY_TREE', `uncommitted changes (${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}); commit them before publishing`);
  }
  await git(root, ['fetch', '-q', 'origin']);
  const tracking = `refs/remotes/origin/${branch}`;
  const commit = await git(root, ['rev-parse', 'HEAD']);
  let ahead = await countCommits(root, 'HEAD');
  if (await refExists(root, tracking)) {
    const behind = await countCommits(root, `HEAD..${tracking}`);
    if (behind > 0) {
      throw new RoostError('CONFLICT', `${branch} is behind origin/${branch} by ${behind} commit${behind === 1 ? '' : 's'}; pull and merge first (roost never force-pushes)`);
    }
    ahead = await countCommits(root, `${tracking}..HEAD`);
    if (ahead === 0) return { root, remote, branch, commit, pushed: false, commits: 0 };
  }
  await git(root, ['push', '-q', '-u', 'origin', `${branch}:refs/heads/${branch}`]);
  return { root, remote, branch, commit, pushed: true, commits: ahead };
}
