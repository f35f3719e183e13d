// The outside world of the research tools, on loopback: a search API speaking Brave Search's Web Search
// API (GET /res/v1/web/search, X-Subscription-Token, {web: {results}}), and a small web site.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SEARCH_KEY = 'brave-test-token';

export interface Site {
  url: string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closer = (server: Server) => () => new Promise<void>((resolve) => {
  server.closeAllConnections();
  server.close(() => resolve());
});

const PAGES: Record<string, string> = {
  '/roosts': `<html><head><title>About roosts</title></head><body><h1>Roosts</h1><p>Birds sleep in roosts at night.</p>
    <a href="/owls">Owls</a> <a href="https://example.org/x">Elsewhere</a> <a href="mailto:a@b.c">Mail</a> <a href="/owls">Owls again</a></body></html>`,
  '/owls': '<html><head><title>Owls</title></head><body><p>Owls roost in hollow trees during the day.</p></body></html>',
  '/bats': '<html><head><title>Bats</title></head><body><p>Bats roost upside down in caves.</p></body></html>',
  '/long': `<html><head><title>Long</title></head><body><p>${'word '.repeat(40_000)}</p></body></html>`,
};

/** Serves PAGES; /to-file redirects to a file: URL, /redirect?to=<url> to any URL. */
export async function startSite(): Promise<Site> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    requests.push(path);
    if (path === '/to-file') return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (path === '/redirect') return void res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    const page = PAGES[path];
    if (page === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>nothing here');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  return { url: await listen(server), requests, close: closer(server) };
}

export interface FakeSearch {
  url: string;
  /** Each request: query string and the token it carried. */
  requests: Array<{ q: string | null; count: string | null; token: string | undefined }>;
  close(): Promise<void>;
}

/**
 * Answers with the results `resultsFor` gives for the query, in Brave's shape; the query "rate limited"
 * gets Brave's 429 error body, and a wrong token its 401.
 */
export async function startFakeSearch(resultsFor: (q: string) => Array<{ title: string; url: string; description: string }>): Promise<FakeSearch> {
  const requests: FakeSearch['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = req.headers['x-subscription-token'] as string | undefined;
    requests.push({ q: url.searchParams.get('q'), count: url.searchParams.get('count'), token });
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'GET' || url.pathname !== '/res/v1/web/search') return send(404, { type: 'ErrorResponse', error: { code: 'NOT_FOUND', detail: 'Not found', status: 404 } });
    if (token !== SEARCH_KEY) return send(401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', status: 401 } });
    const q = url.searchParams.get('q') ?? '';
    if (q === 'rate limited') return send(429, { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.', status: 429 } });
    const count = Number(url.searchParams.get('count') ?? 20);
    const results = resultsFor(q).slice(0, count).map((r) => ({ type: 'search_result', ...r, description: r.description.replace(/roost/i, '<strong>$&</strong>') }));
    send(200, { type: 'search', query: { original: q }, web: { type: 'search', results } });
  });
  return { url: await listen(server), requests, close: closer(server) };
}
