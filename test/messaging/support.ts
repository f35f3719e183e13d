// The messaging and A2A suites: a real server (with the fx-caller fixture, which mints agent MCP tokens
// the way a session runner does) whose sessions run against the fake Anthropic API. Each agent answers
// "<its name> heard: <the last user message>", so a test can tell who answered what.
import { startFakeAnthropic, type AnthropicReply, type FakeAnthropic } from '../fakes/anthropic.js';
import type { RecordedRequest } from '../fakes/provider-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FIXTURES } from '../agents/support.js';

export const MODEL = 'claude-sonnet-5-5';

export interface MessagingServer {
  server: TestServer;
  anthropic: FakeAnthropic;
  close(): Promise<void>;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && 'text' in b ? String(b.text) : '')).join('');
  return '';
}

export const lastUserText = (req: RecordedRequest): string => {
  const users = (req.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user');
  return textOf(users.at(-1)?.content);
};

/** Who a request is for: agents here have system prompts "You are <name>." */
export const speakerOf = (req: RecordedRequest): string => /You are ([\w-]+)\./.exec(textOf(req.body?.system))?.[1] ?? 'someone';

/** Echoes, naming the speaker; a message containing SLOW is answered after `slowMs`. */
export function echo(options: { delayMs?: number; slowMs?: number } = {}) {
  return (req: RecordedRequest): AnthropicReply => {
    const text = lastUserText(req);
    const delayMs = text.includes('SLOW') ? (options.slowMs ?? 30_000) : options.delayMs;
    return { text: `${speakerOf(req)} heard: ${text}`, ...(delayMs ? { delayMs } : {}) };
  };
}

export async function startMessagingServer(options: { delayMs?: number; slowMs?: number; env?: Record<string, string> } = {}): Promise<MessagingServer> {
  const anthropic = await startFakeAnthropic({ apiKey: 'test', script: echo(options) });
  const server = await startTestServer({
    env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXTENSION_DIRS: FIXTURES, ...options.env },
  });
  return {
    server,
    anthropic,
    async close() {
      await server.cleanup();
      await anthropic.close();
    },
  };
}

/** An agent whose system prompt names it, so the fake answers as it (no key: the instance owner's). */
export async function namedAgent(server: TestServer, key: string | undefined, name: string): Promise<{ id: string; name: string }> {
  const res = await server.api('POST', '/api/agents', { key, body: { name, model: MODEL, systemPrompt: `You are ${name}.` } });
  if (res.status !== 201) throw new Error(`agent ${name} not created: ${res.status} ${res.text}`);
  return res.body;
}

/**
 * A running session of the agent (the sender's session, whose MCP token the loop limits count by); it
 * needs no turn of its own to send from.
 */
export async function sessionOf(server: TestServer, key: string, agentId: string): Promise<string> {
  const res = await server.api('POST', '/api/sessions', { key, body: { agentId } });
  if (res.status !== 201) throw new Error(`session not started: ${res.status} ${res.text}`);
  return res.body.id;
}

/** An MCP token for the agent in a session, minted like a runner's (fx-caller). */
export async function sessionToken(server: TestServer, key: string | undefined, agentId: string, sessionId: string | null): Promise<string> {
  const res = await server.api('POST', `/api/fx-caller/token/${agentId}`, { key, body: sessionId ? { sessionId } : {} });
  if (res.status !== 201) throw new Error(`token not minted: ${res.status} ${res.text}`);
  return res.body.token;
}
