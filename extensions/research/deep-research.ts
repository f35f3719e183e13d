// svc_deep_research: search the question, read the top pages in the browser, and have the calling
// agent summarise them with its own model — in a session of its own (askAgent through the sessions
// routes), so the provider, its credentials and the credits are the agent's exactly as in any session.
// That session is stopped once it has answered, and may not start another deep research itself.
import { RoostError } from '../../protocol/errors.js';
import { askAgent } from '../sessions/contract-reply.js';
import type { HostClient } from '../../sdk/host-client.js';
import type { Reach } from '../../sdk/outbound.js';
import type { Chromium } from './browser.js';
import type { ResearchConfig } from './config.js';
import { pageText } from './readers.js';
import { webSearch, type SearchResult } from './search.js';
import { sessionsClient } from '../sessions/contract.js';

/** Names the summary sessions; a deep research asked from one of them is refused (no recursion). */
export const SUMMARY_SESSION_PREFIX = 'Research summary: ';
const PAGE_CHARS = 8_000;
const SUMMARY_TIMEOUT_MS = 8 * 60_000;

export interface Caller {
  tenantId: string;
  agentId: string | null;
  sessionId: string | null;
}

interface Source {
  n: number;
  title: string;
  url: string;
  read: boolean;
  error?: string;
}

/** Pages read at each depth: 1 → 3, 2 → 5, 3 → 7. */
export const pagesFor = (depth: number) => 2 * depth + 1;

/** The browser, and where it may connect for the caller (the pages come from a search: anyone can put them there). */
export interface PageReader {
  chromium: Chromium;
  reachOf: (port: number) => Reach;
}

export async function deepResearch(host: HostClient, config: ResearchConfig, reader: PageReader, caller: Caller, question: string, depth: number) {
  if (!caller.agentId) {
    throw new RoostError('VALIDATION_ERROR', "svc_deep_research summarises with the calling agent's model: call it from an agent's session (an MCP token that names an agent)");
  }
  const as = { tenantId: caller.tenantId };
  if (caller.sessionId && (await sessionName(host, as, caller.sessionId)).startsWith(SUMMARY_SESSION_PREFIX)) {
    throw new RoostError('CONFLICT', 'a research summary session cannot start another deep research');
  }
  const wanted = pagesFor(depth);
  const results = await webSearch(config, question, Math.min(20, wanted * 2));
  if (results.length === 0) throw new RoostError('NOT_FOUND', `the search found nothing for "${question}"`);
  const { sources, material } = await readTopPages(reader, results, wanted);
  const prompt = [
    'Answer the question below from the sources that follow, citing them as [1], [2]… Be concise and say where the sources disagree or fall short. Do not call tools.',
    `Question: ${question}`,
    ...material,
  ].join('\n\n');
  const reply = await askAgent(host, as, {
    agentId: caller.agentId,
    prompt,
    session: { source: 'agent', name: `${SUMMARY_SESSION_PREFIX}${question}`.slice(0, 200) },
    timeoutMs: SUMMARY_TIMEOUT_MS,
  });
  await sessionsClient(host, as).stop(reply.sessionId).catch(() => undefined);
  return { question, depth, summary: reply.text, sources, sessionId: reply.sessionId, cost: reply.cost };
}

/** Reads results in order until `wanted` pages were read; a page that fails is noted, and its search snippet used. */
async function readTopPages(reader: PageReader, results: SearchResult[], wanted: number): Promise<{ sources: Source[]; material: string[] }> {
  const sources: Source[] = [];
  const material: string[] = [];
  for (const result of results) {
    if (sources.filter((s) => s.read).length >= wanted) break;
    const n = sources.length + 1;
    try {
      const text = await reader.chromium.withPage(result.url, reader.reachOf, async (page, info) => {
        if (info.status !== null && info.status >= 400) throw new RoostError('UPSTREAM_ERROR', `the page answered ${info.status}`);
        return (await pageText(page, PAGE_CHARS)).text;
      });
      sources.push({ n, title: result.title, url: result.url, read: true });
      material.push(`[${n}] ${result.title} — ${result.url}\n${text}`);
    } catch (err) {
      // Without a browser nothing can be read: say so rather than summarise snippets.
      if (err instanceof RoostError && err.code === 'EXTENSION_UNAVAILABLE') throw err;
      sources.push({ n, title: result.title, url: result.url, read: false, error: (err as Error).message });
      material.push(`[${n}] ${result.title} — ${result.url}\n(the page could not be read; the search snippet:) ${result.description}`);
    }
  }
  return { sources, material };
}

async function sessionName(host: HostClient, as: { tenantId: string }, sessionId: string): Promise<string> {
  const reply = await sessionsClient(host, as).get(sessionId);
  return reply.status === 200 && typeof reply.body?.name === 'string' ? reply.body.name : '';
}
