// `lanes import <org>/<repo>`: clones <ROOST_GIT_HOST>/<org>/<repo> into .roost/lanes/<org>/<repo>
// (a second import of the same repository fast-forwards it). ROOST_GIT_HOST is a directory, a file://
// URL or an https URL; the default is https://github.com.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RoostError } from '../../protocol/errors.js';
import { usageError } from '../output.js';
import { git } from '../work/git.js';
import { IMPORTS_DIR, loadLanes, readLanesFile } from './config.js';
import { REPO_NAME } from './repo-create.js';

export const DEFAULT_GIT_HOST = 'https://github.com';

export interface Imported {
  repository: string;
  url: string;
  path: string;
  updated: boolean;
  commit: string;
  /** Lanes now available from this repository. */
  lanes: string[];
  /** Lanes of this repository hidden by a lane of the same name (local lanes win). */
  shadowed: Array<{ name: string; by: string }>;
}

export async function importLanesRepo(root: string, repository: string, host = process.env.ROOST_GIT_HOST || DEFAULT_GIT_HOST): Promise<Imported> {
  const [org, repo, ...extra] = repository.split('/');
  if (org === undefined || repo === undefined || extra.length > 0 || !REPO_NAME.test(org) || !REPO_NAME.test(repo)) {
    throw usageError(`expected <org>/<repo>, got "${repository}"`);
  }
  const url = repositoryUrl(host, org, repo);
  const path = join(root, IMPORTS_DIR, org, repo);
  const updated = existsSync(path);
  if (updated) {
    await git(path, ['pull', '-q', '--ff-only']);
  } else {
    mkdirSync(dirname(path), { recursive: true });
    ignoreImports(root);
    await git(root, ['clone', '-q', url, path]);
  }
  try {
    if (!existsSync(join(path, 'lanes.toml'))) throw new RoostError('VALIDATION_ERROR', `${org}/${repo} has no lanes.toml at its root`);
    readLanesFile(join(path, 'lanes.toml'), root);
  } catch (err) {
    if (!updated) rmSync(path, { recursive: true, force: true });
    throw err;
  }
  const source = `${org}/${repo}`;
  const set = loadLanes(root);
  return {
    repository: source,
    url,
    path,
    updated,
    commit: await git(path, ['rev-parse', 'HEAD']),
    lanes: [...set.lanes.values()].filter((l) => l.source === source).map((l) => l.name),
    shadowed: set.shadowed.filter((s) => s.source === source).map(({ name, by }) => ({ name, by })),
  };
}

/** A URL host gets /<org>/<repo> appended; a directory host may hold <repo> or the bare <repo>.git. */
export function repositoryUrl(host: string, org: string, repo: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host) && !host.startsWith('file:')) return `${host.replace(/\/+$/, '')}/${org}/${repo}`;
  const base = resolve(host.startsWith('file:') ? fileURLToPath(host) : host, org, repo);
  if (!existsSync(base) && existsSync(`${base}.git`)) return `${base}.git`;
  if (!existsSync(base)) throw new RoostError('NOT_FOUND', `no repository ${org}/${repo} under ${host}`);
  return base;
}

/** Imported clones are fetched, not authored: keep them out of the project's own history. */
function ignoreImports(root: string): void {
  const ignore = join(root, IMPORTS_DIR, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# roost lanes import: clones of shared lanes repositories\n*\n');
}
