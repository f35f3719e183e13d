// svc_web_search against Brave Search's Web Search API — GET <base>/res/v1/web/search?q=…&count=…
// with the subscription token in X-Subscription-Token — or anything that speaks its shape
// ({web: {results: [{title, url, description}]}}). Bounded in time and in the size of the answer.
import { RoostError } from '../../protocol/errors.js';
import type { ResearchConfig } from './config.js';

export interface SearchResult {
  title: string;
  url: string;
  description: string;
}

export const MAX_RESULTS = 20;
const TIMEOUT_MS = 15_000;
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export async function webSearch(config: ResearchConfig, query: string, count: number): Promise<SearchResult[]> {
  if (!config.searchKey) {
    throw new RoostError('EXTENSION_UNAVAILABLE', 'web search is not configured: set ROOST_SEARCH_API_KEY to a Brave Search API subscription token (and ROOST_SEARCH_API_URL for another service speaking the same API)', { status: 503 });
  }
  const url = new URL(`${config.searchUrl}/res/v1/web/search`);
  url.searchParams.set('q', query);
  url.searchParams.set('count', String(Math.min(count, MAX_RESULTS)));
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', 'x-subscription-token': config.searchKey }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new RoostError('UPSTREAM_ERROR', `the search API at ${config.searchUrl} could not be reached: ${(err as Error).message}`);
  }
  const text = await boundedText(res);
  if (!res.ok) throw new RoostError('UPSTREAM_ERROR', `the search API answered ${res.status}: ${errorDetail(text)}`);
  let body: { web?: { results?: Array<Record<string, unknown>> } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new RoostError('UPSTREAM_ERROR', 'the search API answered something that is not JSON');
  }
  return (body.web?.results ?? []).slice(0, count).flatMap((r) =>
    typeof r.url === 'string' ? [{ title: String(r.title ?? r.url), url: r.url, description: stripTags(String(r.description ?? '')) }] : [],
  );
}

/** The body as text, refused past MAX_BODY_BYTES while it streams in. */
async function boundedText(res: Response): Promise<string> {
  const tooLarge = () => new RoostError('UPSTREAM_ERROR', `the search API's answer is larger than ${MAX_BODY_BYTES} bytes`);
  if (Number(res.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Brave's errors: {type: "ErrorResponse", error: {detail, code, status}}. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { detail?: string; code?: string } };
    if (body.error?.detail) return `${body.error.detail}${body.error.code ? ` (${body.error.code})` : ''}`;
  } catch {
    // not JSON: show its start
  }
  return text.slice(0, 200);
}

/** Brave marks the matched words in descriptions with <strong>. */
function stripTags(text: string): string {
  return text.replace(/<\/?strong>/g, '');
}
