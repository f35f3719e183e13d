// A fake GitHub-like code host: the REST routes roost's github plugin and codehost extension use, with
// GitHub's status codes and error bodies (401 Bad credentials, 404 Not Found, 422 Validation Failed).
// It keeps pull requests, issues, comments, stars, forks and follows in memory and records every
// request so tests can see exactly what was sent. Social and issue routes live in codehost-social.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newSocialState, socialRoute, type SocialState } from './vcshost-social.js';

export interface FakeCheckRun {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null;
}

export interface FakeRepo {
  defaultBranch: string;
  /** Check runs by ref (branch name or sha). */
  checks?: Record<string, FakeCheckRun[]>;
}

export interface CodeHostRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

export interface FakeCodeHost {
  url: string;
  requests: CodeHostRequest[];
  pulls: Array<{ number: number; repo: string; title: string; body: string; head: string; base: string; draft: boolean }>;
  /** Issues, comments, reviews, stars, forks, follows (codehost-social.ts). */
  social: SocialState;
  close(): Promise<void>;
}

export interface CodeHostOptions {
  token: string;
  repos: Record<string, FakeRepo>;
  scopes?: string[];
  login?: string;
  /** The clone_url POST /user/repos hands back for a new repository (a bare repository on disk in tests). */
  cloneUrl?: (fullName: string) => string;
}

export async function startCodeHost(options: CodeHostOptions): Promise<FakeCodeHost> {
  const requests: CodeHostRequest[] = [];
  const pulls: FakeCodeHost['pulls'] = [];
  const social = newSocialState(options.login ?? 'roost-bot');
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
    const bearer = /^(?:Bearer|token) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== options.token) {
      return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    res.setHeader('x-oauth-scopes', (options.scopes ?? ['repo']).join(', '));
    const url = new URL(path, 'http://codehost');
    if (req.method === 'POST' && url.pathname === '/user/repos') return createRepo(res, body);
    if (socialRoute(social, options.repos, pulls, req, res, url, body)) return;
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const slug = match ? `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}` : '';
    const repo = options.repos[slug];
    if (!match || !repo) return send(res, 404, { message: 'Not Found' });
    const rest = match[3] ?? '';
    if (req.method === 'GET' && rest === '') {
      return send(res, 200, { full_name: slug, name: match[2], default_branch: repo.defaultBranch, private: false });
    }
    if (req.method === 'POST' && rest === '/pulls') return createPull(res, slug, body);
    const checks = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
    if (req.method === 'GET' && checks) {
      const runs = (repo.checks?.[decodeURIComponent(checks[1]!)] ?? []).map((run, i) => ({
        id: i + 1, ...run, html_url: `https://codehost.test/${slug}/runs/${i + 1}`,
      }));
      return send(res, 200, { total_count: runs.length, check_runs: runs });
    }
    return send(res, 404, { message: 'Not Found' });
  });

  function createRepo(res: ServerResponse, body: any): void {
    if (typeof body?.name !== 'string' || body.name === '') {
      return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Repository', field: 'name', code: 'missing_field' }] });
    }
    const fullName = `${social.login}/${body.name}`;
    if (options.repos[fullName]) {
      return send(res, 422, { message: 'Repository creation failed.', errors: [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }] });
    }
    options.repos[fullName] = { defaultBranch: 'main' };
    send(res, 201, {
      name: body.name, full_name: fullName, private: Boolean(body.private), description: body.description ?? null, default_branch: 'main',
      html_url: `https://codehost.test/${fullName}`, clone_url: options.cloneUrl?.(fullName) ?? `https://codehost.test/${fullName}.git`,
    });
  }

  function createPull(res: ServerResponse, repo: string, body: any): void {
    const missing = ['title', 'head', 'base'].filter((field) => typeof body?.[field] !== 'string' || body[field] === '');
    if (missing.length > 0) {
      return send(res, 422, { message: 'Validation Failed', errors: missing.map((field) => ({ resource: 'PullRequest', field, code: 'missing_field' })) });
    }
    if (pulls.some((p) => p.repo === repo && p.head === body.head && p.base === body.base)) {
      return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${body.head}.` }] });
    }
    const pull = { number: pulls.length + 1, repo, title: body.title, body: body.body ?? '', head: body.head, base: body.base, draft: Boolean(body.draft) };
    pulls.push(pull);
    send(res, 201, {
      number: pull.number,
      html_url: `https://codehost.test/${repo}/pull/${pull.number}`,
      title: pull.title,
      body: pull.body,
      draft: pull.draft,
      state: 'open',
      head: { ref: pull.head },
      base: { ref: pull.base },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    pulls,
    social,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
