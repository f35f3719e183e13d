// The CLI's code host: GitHub's REST API through @octokit/rest, found the way the github plugin finds
// it — token GITHUB_TOKEN, base URL ROOST_GITHUB_API (default https://api.github.com). Without a token
// the commands that could use it work locally and say how to add the code host.
import type { Octokit } from '@octokit/rest';
import { RoostError } from '../protocol/errors.js';

export const TOKEN_HINT = 'set GITHUB_TOKEN (and ROOST_GITHUB_API for a GitHub Enterprise server)';

/** An Octokit for the code host, or null when no token is set. Loaded only when there is a token. */
export async function codeHost(env: NodeJS.ProcessEnv = process.env): Promise<Octokit | null> {
  const token = env.GITHUB_TOKEN;
  if (!token) return null;
  const { Octokit } = await import('@octokit/rest');
  return new Octokit({ auth: token, baseUrl: (env.ROOST_GITHUB_API || 'https://api.github.com').replace(/\/+$/, ''), userAgent: 'roost-cli', log: { debug() {}, info() {}, warn() {}, error() {} } });
}

/** A failed code-host call as the CLI's error shape, with GitHub's own message. */
export function codeHostError(what: string, err: unknown): RoostError {
  const status = (err as { status?: number }).status;
  const message = (err as { response?: { data?: { message?: string } } }).response?.data?.message ?? (err as Error).message;
  const code = status === 401 || status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : 'UPSTREAM_ERROR';
  return new RoostError(code, `${what}: ${status ? `HTTP ${status} ` : ''}${message}`);
}
