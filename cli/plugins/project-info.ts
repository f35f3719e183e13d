// The project a plugin runs in (init.project and the metadata reply): name, root, language and git state.
import { basename } from 'node:path';
import { execa } from 'execa';
import type { ProjectInfo } from '../../protocol/messages.js';
import { stripCredentials } from '../../kernel/host/remote-url.js';
import { detectProject } from '../../extensions/_shared/project/detect.js';
import { EXTRA_METADATA_KEYS, extraMetadata } from './metadata-extra.js';

/** The detected project around cwd, or null when cwd is in no project (no marker file, no git). */
export async function projectInfo(cwd: string): Promise<ProjectInfo | null> {
  const project = detectProject(cwd);
  const git = await gitState(project.root);
  if (project.stacks.length === 0 && git === null) return null;
  return { name: basename(project.root), root: project.root, language: project.stacks[0]?.id ?? null, git };
}

async function gitState(root: string): Promise<ProjectInfo['git']> {
  const run = (...args: string[]) => execa('git', args, { cwd: root, reject: false, stdin: 'ignore' });
  const [status, remotes] = await Promise.all([
    run('status', '--porcelain=v2', '--branch', '--untracked-files=normal'),
    run('remote'),
  ]);
  if (status.exitCode !== 0) return null;
  const lines = String(status.stdout).split('\n');
  const head = lines.find((l) => l.startsWith('# branch.head '))?.slice('# branch.head '.length);
  const names = String(remotes.stdout).split('\n').filter(Boolean);
  const remote = names.includes('origin') ? 'origin' : names[0] ?? null;
  const url = remote ? String((await run('remote', 'get-url', remote)).stdout).trim() : '';
  return {
    branch: head && head !== '(detached)' ? head : null,
    dirty: lines.some((l) => l !== '' && !l.startsWith('#')),
    remote,
    // The raw URL may hold user:token@; it never leaves this function.
    remote_url: url ? stripCredentials(url) : null,
  };
}

/** The metadata reply: project facts, filtered to the keys the plugin asked for; the extra keys only when asked. */
export async function metadataReply(project: ProjectInfo | null, cwd: string, keys: string[] | undefined): Promise<Record<string, unknown>> {
  const all: Record<string, unknown> = project
    ? { language: project.language, name: project.name, root: project.root, git: project.git }
    : { language: null, name: basename(cwd), root: cwd, git: null };
  if (!keys) return all;
  const reply: Record<string, unknown> = {};
  for (const key of keys) {
    if (Object.hasOwn(all, key)) reply[key] = all[key];
    else if ((EXTRA_METADATA_KEYS as readonly string[]).includes(key)) reply[key] = await extraMetadata(key as (typeof EXTRA_METADATA_KEYS)[number], project?.root ?? cwd);
  }
  return reply;
}
