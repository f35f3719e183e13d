// A small client of the GitHub REST API: base URL ROOST_GITHUB_API (default https://api.github.com),
// token GITHUB_TOKEN. Errors carry GitHub's own message.
import { RoostError } from '../../protocol/errors.js';

export const DEFAULT_API = 'https://api.github.com';
const TIMEOUT_MS = 30_000;

export class GitHubApi {
  private readonly base: string;

  constructor(private readonly token: string, base = DEFAULT_API) {
    this.base = base.replace(/\/+$/, '');
  }

  static fromEnv(env: NodeJS.ProcessEnv): GitHubApi {
    const token = env.GITHUB_TOKEN;
    if (!token) throw new RoostError('USAGE', 'set GITHUB_TOKEN to a token that may read checks and open pull requests');
    return new GitHubApi(token, env.ROOST_GITHUB_API || DEFAULT_API);
  }

  async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const url = `${this.base}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'roost (cli-plugin-github)',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new RoostError('UPSTREAM_ERROR', `${this.base} cannot be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      throw new RoostError('UPSTREAM_ERROR', `${method} ${path} answered HTTP ${res.status} with a body that is not JSON`);
    }
    if (res.ok) return data as T;
    throw new RoostError(res.status === 401 || res.status === 403 ? 'FORBIDDEN' : res.status === 404 ? 'NOT_FOUND' : 'UPSTREAM_ERROR', `${method} ${path}: HTTP ${res.status} ${describeError(data)}`);
  }
}

function describeError(data: unknown): string {
  const body = data as { message?: string; errors?: Array<{ message?: string; field?: string; code?: string }> } | null;
  const details = (body?.errors ?? []).map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' ')).filter(Boolean);
  return [body?.message ?? 'request failed', ...details].join('; ');
}
