// The code host's REST API through @octokit/rest: base URL and token from the extension's settings
// (ROOST_EXT_VCSHOST_BASE_URL, ROOST_EXT_VCSHOST_TOKEN). Its errors become RoostErrors with honest codes.
import { Octokit } from '@octokit/rest';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { stringSetting } from '../../sdk/settings.js';

export const DEFAULT_BASE_URL = 'https://api.github.com';

export function baseUrl(ctx: ExtensionContext): string {
  return (stringSetting(ctx, 'BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
}

export function configured(ctx: ExtensionContext): boolean {
  return stringSetting(ctx, 'TOKEN') !== undefined;
}

export function octokit(ctx: ExtensionContext): Octokit {
  const token = stringSetting(ctx, 'TOKEN');
  if (!token) throw new RoostError('EXTENSION_UNAVAILABLE', 'the code host is not configured: set ROOST_EXT_VCSHOST_TOKEN (and ROOST_EXT_VCSHOST_BASE_URL for a host other than GitHub)');
  return new Octokit({ auth: token, baseUrl: baseUrl(ctx), userAgent: 'roost-codehost', log: { debug() {}, info() {}, warn() {}, error() {} } });
}

/** An Octokit failure as the caller should see it (the token never appears: Octokit redacts it). */
export function hostError(err: unknown, what: string): RoostError {
  if (err instanceof RoostError) return err;
  const status = (err as { status?: number }).status;
  const message = (err as { response?: { data?: { message?: string } } }).response?.data?.message ?? (err as Error).message;
  if (status === 404) return new RoostError('NOT_FOUND', `${what}: not found on the code host`);
  if (status === 422) return new RoostError('VALIDATION_ERROR', `${what}: the code host refused it (${message})`);
  return new RoostError('UPSTREAM_ERROR', `${what} failed on the code host${status ? ` (${status})` : ''}: ${message}`);
}

/** "owner/name" split, for Octokit's parameters. */
export function ownerRepo(repo: string): { owner: string; repo: string } {
  const [owner, name] = repo.split('/');
  return { owner: owner!, repo: name! };
}
