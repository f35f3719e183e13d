// `lanes create`: a new lanes repository — a git repository holding lanes.toml and a README, with one
// commit on main, ready for a remote and `roost lanes publish`.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
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
  const files = { 'lanes.toml': lanesToml(name), 'README.md': readme(name) };
  try {
    for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
    readLanesFile(join(path, 'lanes.toml'), path);
    await git(path, ['init', '-q', '-b', 'main']);
    await git(path, ['add', '--', ...Object.keys(files)]);
    await git(path, ['commit', '-q', '-m', `Create lanes repository ${name}`]);
  } catch (err) {
    // Leave nothing half-made behind (a missing git identity is the usual cause), so a retry works.
    rmSync(path, { recursive: true, force: true });
    if (existed) mkdirSync(path);
    throw err;
  }
  const commit = await git(path, ['rev-parse', 'HEAD']);
  return { name, path, branch: 'main', commit, files: Object.keys(files) };
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
