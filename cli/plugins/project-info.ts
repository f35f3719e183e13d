// The project a plugin runs in (init.project and the metadata reply): name, root, language and git state.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ProjectInfo } from '../../protocol/messages.js';
import { stripCredentials } from '../../lib/git-remote.js';
import { detectProject } from '../../lib/project/detect.js';
import { gitTry } from '../work/git.js';

/**
 * The detected project around cwd, or null when cwd is in no project (no marker file, no git). The
 * remote is looked up only for a plugin that may see it (`withRemote`: the metadata grant); git is not
 * asked at all outside a repository.
 */
export async function projectInfo(cwd: string, withRemote: boolean): Promise<ProjectInfo | null> {
  const project = detectProject(cwd);
  const git = insideGitRepository(project.root) ? await gitState(project.root, withRemote) : null;
  if (project.stacks.length === 0 && git === null) return null;
  return { name: basename(project.root), root: project.root, language: project.stacks[0]?.id ?? null, git };
}

/** A .git in the folder or above it, or GIT_DIR naming one. */
function insideGitRepository(root: string): boolean {
  if (process.env.GIT_DIR) return true;
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

async function gitState(root: string, withRemote: boolean): Promise<ProjectInfo['git']> {
  // No git on PATH reads as no repository.
  const run = (...args: string[]) => gitTry(root, args).catch(() => ({ exitCode: 127, stdout: '', stderr: '' }));
  const [status, remotes] = await Promise.all([
    run('status', '--porcelain=v2', '--branch', '--untracked-files=normal'),
    withRemote ? run('remote') : undefined,
  ]);
  if (status.exitCode !== 0) return null;
  const lines = status.stdout.split('\n');
  const head = lines.find((l) => l.startsWith('# branch.head '))?.slice('# branch.head '.length);
  const names = (remotes?.stdout ?? '').split('\n').filter(Boolean);
  const remote = names.includes('origin') ? 'origin' : names[0] ?? null;
  const url = remote ? (await run('remote', 'get-url', remote)).stdout.trim() : '';
  return {
    branch: head && head !== '(detached)' ? head : null,
    dirty: lines.some((l) => l !== '' && !l.startsWith('#')),
    remote,
    // The raw URL may hold user:token@; it never leaves this function.
    remote_url: url ? stripCredentials(url) : null,
  };
}

/** The metadata reply: project facts, filtered to the keys the plugin asked for; the extra keys only when asked. */
export async function metadataReply(project: ProjectInfo | null, cwd: string, keys: string[] | undefined, env: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  const all: Record<string, unknown> = project
    ? { language: project.language, name: project.name, root: project.root, git: project.git }
    : { language: null, name: basename(cwd), root: cwd, git: null };
  if (!keys) return all;
  const reply: Record<string, unknown> = {};
  for (const key of keys) {
    if (Object.hasOwn(all, key)) reply[key] = all[key];
    else {
      // fledge's extra keys load their module only when a plugin asks for one.
      const { EXTRA_METADATA_KEYS, extraMetadata } = await import('./metadata-extra.js');
      if ((EXTRA_METADATA_KEYS as readonly string[]).includes(key)) reply[key] = await extraMetadata(key as (typeof EXTRA_METADATA_KEYS)[number], project?.root ?? cwd, env);
    }
  }
  return reply;
}
