// Metadata keys beyond the project facts, computed only when a plugin asks for them by name (fledge's
// keys): git_tags, git_status, git_log, env and fledge_config.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { gitTry } from '../work/git.js';

export const EXTRA_METADATA_KEYS = ['git_tags', 'git_status', 'git_log', 'env', 'fledge_config'] as const;

const GIT_LOG_LENGTH = 20;

/** `env` is the plugin's own environment (its allow-list, cli/plugins/plugin-env.ts), never roost's. */
export async function extraMetadata(key: (typeof EXTRA_METADATA_KEYS)[number], root: string, env: Record<string, string | undefined>): Promise<unknown> {
  const git = async (...args: string[]) => {
    const result = await gitTry(root, args).catch(() => null); // no git: no answer
    return result?.exitCode === 0 ? result.stdout.split('\n').filter(Boolean) : null;
  };
  switch (key) {
    case 'git_tags':
      return (await git('tag', '--list', '--sort=-creatordate')) ?? [];
    case 'git_status':
      // porcelain v1 lines "XY path": the changed files, as `git status --short` shows them.
      return ((await git('status', '--porcelain=v1', '--untracked-files=normal')) ?? []).map((line) => ({ status: line.slice(0, 2).trim(), path: line.slice(3) }));
    case 'git_log':
      return ((await git('log', `-${GIT_LOG_LENGTH}`, '--format=%H%x1f%an%x1f%aI%x1f%s')) ?? []).map((line) => {
        const [hash, author, date, subject] = line.split('\x1f');
        return { hash, author, date, subject };
      });
    case 'env':
      return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
    case 'fledge_config':
      return readFledgeConfig(root);
  }
}

async function readFledgeConfig(root: string): Promise<unknown> {
  try {
    return parseToml(await readFile(join(root, 'fledge.toml'), 'utf8'));
  } catch {
    return null; // no fledge.toml, or one that does not parse
  }
}
