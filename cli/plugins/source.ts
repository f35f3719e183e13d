// Where `plugins install <source>` fetches from, and the fetch itself (git clone, or a copy of a plain
// folder). <org>/<repo> resolves against ROOST_GIT_HOST: a path, a file:// URL or an https base.
import { existsSync, statSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { RoostError } from '../../protocol/errors.js';
import { usageError } from '../output.js';

export type PluginSource = { kind: 'git'; url: string } | { kind: 'dir'; path: string };

export const DEFAULT_GIT_HOST = 'https://github.com';
const ORG_REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const GIT_URL = /^([a-z][a-z0-9+.-]*:\/\/|[^/@\s]+@[^:\s]+:)/i;

export function resolveSource(spec: string, cwd: string, gitHost = process.env.ROOST_GIT_HOST || DEFAULT_GIT_HOST): PluginSource {
  if (spec.trim() === '') throw usageError('plugins install needs <org>/<repo>, a path or a git URL (or --defaults)');
  if (GIT_URL.test(spec)) return spec.startsWith('file://') ? localSource(fileURLToPath(spec)) : { kind: 'git', url: spec };
  if (isAbsolute(spec) || spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    return localSource(resolve(cwd, spec));
  }
  if (ORG_REPO.test(spec)) return fromGitHost(spec, gitHost);
  throw usageError(`"${spec}" is neither <org>/<repo>, a path (start it with ./ or /) nor a git URL`);
}

function fromGitHost(orgRepo: string, host: string): PluginSource {
  if (/^https?:\/\//.test(host)) return { kind: 'git', url: `${host.replace(/\/+$/, '')}/${orgRepo}.git` };
  const base = host.startsWith('file://') ? fileURLToPath(host) : resolve(host);
  const candidates = [join(base, `${orgRepo}.git`), join(base, orgRepo)];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new RoostError('NOT_FOUND', `no repository ${orgRepo} under ROOST_GIT_HOST (${base})`);
  return { kind: 'git', url: found };
}

/** A folder on disk is installed as it is on disk (uncommitted edits included); a bare repository is cloned. */
function localSource(path: string): PluginSource {
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new RoostError('NOT_FOUND', `${path} is not a folder`);
  const isBare = !existsSync(join(path, '.git')) && existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects'));
  return isBare ? { kind: 'git', url: path } : { kind: 'dir', path };
}

export function describeSource(source: PluginSource): string {
  return source.kind === 'git' ? source.url : source.path;
}

/** Puts the plugin's files in `target` (which must not exist yet). */
export async function fetchSource(source: PluginSource, target: string): Promise<void> {
  if (source.kind === 'dir') {
    await cp(source.path, target, { recursive: true, filter: (from) => !from.endsWith('/.git') });
    return;
  }
  const remote = /^(https?|ssh|git):\/\//.test(source.url) || GIT_URL.test(source.url);
  const result = await execa('git', ['clone', '-q', ...(remote ? ['--depth', '1'] : []), '--', source.url, target], {
    reject: false,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0' },
    timeout: 300_000,
  });
  if (result.exitCode !== 0) {
    throw new RoostError('UPSTREAM_ERROR', `git clone ${source.url} failed: ${String(result.stderr).trim().split('\n').slice(-3).join(' ')}`);
  }
}
