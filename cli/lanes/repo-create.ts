// `lanes create`: a new lanes repository — a git repository holding lanes.toml and a README, with one
// commit on main. With a code-host token it also creates the remote repository and sets it as `origin`,
// so `roost lanes publish` works at once; without one, the remote is the person's to add.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { codeHost, codeHostError } from '../vcshost.js';
import { usageError } from '../output.js';
import { git } from '../work/git.js';
import { readLanesFile } from './config.js';

export const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface CreatedRepo {
  name: string;
  path: string;
  branch: string;
  commit: string;
  files: string[];
  /** The remote repository created on the code host, or null without a token. */
  remote: { url: string; htmlUrl: string; fullName: string } | null;
}

export async function createLanesRepo(cwd: string, name: string): Promise<CreatedRepo> {
  if (!REPO_NAME.test(name) || name.endsWith('.git')) {
    throw usageError(`invalid repository name "${name}": use letters, digits, ".", "_" and "-"`);
  }
  const path = resolve(cwd, name);
  if (existsSync(path) && readdirSync(path).length > 0) {
    throw new RoostError('CONFLICT', `${path} already exists and is not empty`);
  }
  const existed = existsSync(path);
  mkdirSync(path, { recursive: true });
  let remote: CreatedRepo['remote'] = null;
  const files = { 'lanes.toml': lanesToml(name), 'README.md': readme(name) };
  try {
    for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
    readLanesFile(join(path, 'lanes.toml'), path);
    await git(path, ['init', '-q', '-b', 'main']);
    await git(path, ['add', '--', ...Object.keys(files)]);
    await git(path, ['commit', '-q', '-m', `Create lanes repository ${name}`]);
    remote = await createRemote(path, name);
  } catch (err) {
    // Leave nothing half-made behind (a missing git identity is the usual cause), so a retry works.
    rmSync(path, { recursive: true, force: true });
    if (existed) mkdirSync(path);
    throw err;
  }
  const commit = await git(path, ['rev-parse', 'HEAD']);
  return { name, path, branch: 'main', commit, files: Object.keys(files), remote };
}

/** The repository of the token's user on the code host, set as `origin`; null without a token. */
async function createRemote(path: string, name: string): Promise<CreatedRepo['remote']> {
  const octokit = await codeHost();
  if (!octokit) return null;
  let repo: { clone_url: string; html_url: string; full_name: string };
  try {
    ({ data: repo } = await octokit.rest.repos.createForAuthenticatedUser({ name, description: `Shared lanes for the roost task runner` }));
  } catch (err) {
    throw codeHostError(`creating the remote repository ${name}`, err);
  }
  await git(path, ['remote', 'add', 'origin', repo.clone_url]);
  return { url: repo.clone_url, htmlUrl: repo.html_url, fullName: repo.full_name };
}

function lanesToml(name: string): string {
  return `# Shared lanes of ${name}. Steps name built-in tasks (test, build, lint, fmt), other lanes,
# plugin commands, or inline commands: { run = "..." }. See: roost lanes run --help
[lanes.check]
description = "Format check, lint and test"
steps = ["lint", "test"]
fail_fast = true
`;
}

function readme(name: string): string {
  return `# ${name}

Shared lanes for the roost task runner.

- Edit \`lanes.toml\`, commit, then publish: \`roost lanes publish\` (pushes to \`origin\`, never forced).
- Use them in a project: \`roost lanes import <org>/${name}\`, then \`roost lanes run check\`.
  A project's own lanes win over imported ones of the same name.
`;
}
