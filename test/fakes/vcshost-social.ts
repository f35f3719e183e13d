// The fake code host's routes beyond repositories and pull-request creation: the authenticated user,
// pull-request lists, diffs and reviews, issues and their comments (with ETags, as mention polling
// reads them), stars, forks and follows. GitHub's paths, shapes and statuses.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { send, type FakeRepo } from './vcshost.js';

export interface FakeComment {
  id: number;
  repo: string;
  issue: number;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}

export interface SocialState {
  login: string;
  issues: Array<{ number: number; repo: string; title: string; body: string; state: 'open' | 'closed'; user: string }>;
  comments: FakeComment[];
  reviews: Array<{ id: number; repo: string; pull: number; event: string; body: string }>;
  stars: Set<string>;
  forks: string[];
  following: Set<string>;
  /** What GET /user says is left of the rate limit (X-RateLimit-Remaining). */
  rateLimitRemaining: number;
  /** A comment as a person would post it (for mention polling and webhooks). */
  addComment(repo: string, issue: number, user: string, body: string): FakeComment;
}

export function newSocialState(login: string): SocialState {
  const state: SocialState = {
    login, issues: [], comments: [], reviews: [], stars: new Set(), forks: [], following: new Set(), rateLimitRemaining: 5000,
    addComment(repo, issue, user, body) {
      const at = new Date().toISOString();
      const comment = { id: 1000 + state.comments.length, repo, issue, body, user, created_at: at, updated_at: at };
      state.comments.push(comment);
      return comment;
    },
  };
  return state;
}

type Pull = { number: number; repo: string; title: string; body: string; head: string; base: string; draft: boolean };

const pullJson = (p: Pull) => ({ number: p.number, html_url: `https://codehost.test/${p.repo}/pull/${p.number}`, title: p.title, body: p.body, state: 'open', draft: p.draft, head: { ref: p.head }, base: { ref: p.base } });
const commentJson = (c: FakeComment) => ({
  id: c.id, body: c.body, user: { login: c.user }, created_at: c.created_at, updated_at: c.updated_at,
  html_url: `https://codehost.test/${c.repo}/issues/${c.issue}#issuecomment-${c.id}`, issue_url: `https://codehost.test/api/repos/${c.repo}/issues/${c.issue}`,
});

/** Answers the request when it is one of these routes (true), else leaves it to the caller. */
export function socialRoute(state: SocialState, repos: Record<string, FakeRepo>, pulls: Pull[], req: IncomingMessage, res: ServerResponse, url: URL, body: any): boolean {
  const method = req.method ?? 'GET';
  const path = url.pathname;
  if (method === 'GET' && path === '/user') {
    res.setHeader('x-ratelimit-remaining', String(state.rateLimitRemaining));
    return send(res, 200, { login: state.login, id: 1 }), true;
  }
  const user = /^\/user\/(starred|following)\/(.+)$/.exec(path);
  if (user && (method === 'PUT' || method === 'DELETE')) {
    const set = user[1] === 'starred' ? state.stars : state.following;
    const key = decodeURIComponent(user[2]!);
    if (user[1] === 'starred' && !repos[key]) return send(res, 404, { message: 'Not Found' }), true;
    if (method === 'PUT') set.add(key);
    else set.delete(key);
    res.writeHead(204).end();
    return true;
  }
  const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(path);
  if (!match) return false;
  const slug = `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`;
  if (!repos[slug]) return false; // the caller answers 404
  const rest = match[3]!;
  if (method === 'GET' && rest === '/pulls') {
    const head = url.searchParams.get('head');
    const list = pulls.filter((p) => p.repo === slug && (!head || head.endsWith(`:${p.head}`) || head === p.head));
    return send(res, 200, list.map(pullJson)), true;
  }
  const pull = /^\/pulls\/(\d+)(\/reviews)?$/.exec(rest);
  if (pull) {
    const found = pulls.find((p) => p.repo === slug && p.number === Number(pull[1]));
    if (!found) return send(res, 404, { message: 'Not Found' }), true;
    if (method === 'GET' && !pull[2]) {
      if ((req.headers.accept ?? '').includes('diff')) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+${found.title}\n`);
        return true;
      }
      return send(res, 200, pullJson(found)), true;
    }
    if (method === 'POST' && pull[2]) {
      if (!['APPROVE', 'REQUEST_CHANGES', 'COMMENT'].includes(body?.event)) return send(res, 422, { message: 'Validation Failed', errors: [{ field: 'event', code: 'invalid' }] }), true;
      const review = { id: 500 + state.reviews.length, repo: slug, pull: found.number, event: body.event, body: body.body ?? '' };
      state.reviews.push(review);
      return send(res, 200, { id: review.id, state: review.event === 'APPROVE' ? 'APPROVED' : review.event === 'COMMENT' ? 'COMMENTED' : 'CHANGES_REQUESTED', body: review.body }), true;
    }
  }
  const oneIssue = /^\/issues\/(\d+)$/.exec(rest);
  if (oneIssue && method === 'GET') {
    const issue = state.issues.find((i) => i.repo === slug && i.number === Number(oneIssue[1]));
    if (!issue) return send(res, 404, { message: 'Not Found' }), true;
    return send(res, 200, { ...issue, html_url: `https://codehost.test/${slug}/issues/${issue.number}`, user: { login: issue.user } }), true;
  }
  if (rest === '/issues' && method === 'GET') return send(res, 200, state.issues.filter((i) => i.repo === slug).map((i) => ({ ...i, user: { login: i.user } }))), true;
  if (rest === '/issues' && method === 'POST') {
    if (typeof body?.title !== 'string' || body.title === '') return send(res, 422, { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] }), true;
    const issue = { number: 100 + state.issues.length, repo: slug, title: body.title, body: body.body ?? '', state: 'open' as const, user: state.login };
    state.issues.push(issue);
    return send(res, 201, { ...issue, html_url: `https://codehost.test/${slug}/issues/${issue.number}`, user: { login: issue.user } }), true;
  }
  const issueComments = /^\/issues\/(\d+)\/comments$/.exec(rest);
  if (issueComments && method === 'POST') {
    const number = Number(issueComments[1]);
    const exists = pulls.some((p) => p.repo === slug && p.number === number) || state.issues.some((i) => i.repo === slug && i.number === number);
    if (!exists) return send(res, 404, { message: 'Not Found' }), true;
    if (typeof body?.body !== 'string' || body.body === '') return send(res, 422, { message: 'Validation Failed', errors: [{ field: 'body', code: 'missing_field' }] }), true;
    return send(res, 201, commentJson(state.addComment(slug, Number(issueComments[1]), state.login, body.body))), true;
  }
  if (rest === '/issues/comments' && method === 'GET') {
    const since = url.searchParams.get('since');
    const list = state.comments.filter((c) => c.repo === slug && (!since || c.updated_at >= since)).map(commentJson);
    const etag = `"${createHash('sha1').update(JSON.stringify(list)).digest('hex')}"`;
    res.setHeader('etag', etag);
    res.setHeader('x-ratelimit-remaining', '4999');
    if (req.headers['if-none-match'] === etag) return res.writeHead(304).end(), true;
    return send(res, 200, list), true;
  }
  if (rest === '/forks' && method === 'POST') {
    state.forks.push(slug);
    return send(res, 202, { full_name: `${state.login}/${match[2]}`, html_url: `https://codehost.test/${state.login}/${match[2]}`, fork: true }), true;
  }
  return false;
}
