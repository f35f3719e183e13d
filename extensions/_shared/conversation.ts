// Continuing a conversation with an agent whose session may have ended: agent-to-agent threads and A2A
// contexts. The message becomes a new user turn of the conversation's session; a session that timed out
// or failed is resumed first (POST /api/sessions/:id/resume); one that was stopped, deleted or cannot be
// resumed is replaced by a new session of the agent, whose first prompt carries the conversation so far
// (the old session's transcript), so the agent picks the conversation up where it was.
import { RoostError } from '../../protocol/errors.js';
import { deliverPrompt, type Delivery } from './agent-reply.js';
import type { CallAs, HostClient } from './host-client.js';

/** How much of the old transcript a new session is given. */
const HISTORY_MESSAGES = 40;
const HISTORY_MESSAGE_CHARS = 4_000;
const HISTORY_CHARS = 40_000;

export interface Continuation {
  agentId: string;
  /** The conversation's session so far. */
  sessionId: string;
  prompt: string;
  /** Fields of a new session, should one be needed (source, name…). */
  session: Record<string, unknown>;
}

/** Where the reply will come; `sessionId` differs from the one given when a new session took over. */
export async function continueConversation(host: HostClient, as: CallAs, input: Continuation): Promise<Delivery & { resumed: boolean }> {
  const attempt = () => deliverPrompt(host, as, { agentId: input.agentId, prompt: input.prompt, sessionId: input.sessionId });
  try {
    return { ...(await attempt()), resumed: false };
  } catch (err) {
    // CONFLICT: the session is not live (timed out, failed, stopped); NOT_FOUND: it was deleted.
    if (!(err instanceof RoostError) || (err.code !== 'CONFLICT' && err.code !== 'NOT_FOUND')) throw err;
  }
  const path = `/api/sessions/${encodeURIComponent(input.sessionId)}`;
  const current = await host.call<{ status?: string }>('GET', path, undefined, as);
  const status = current.status === 200 ? current.body?.status : undefined;
  if (status === 'timeout' || status === 'error') {
    const resumed = await host.call('POST', `${path}/resume`, {}, as);
    if (resumed.status === 200) return { ...(await attempt()), resumed: true };
  }
  const history = current.status === 200 ? await transcript(host, as, input.sessionId) : '';
  const prompt = history === ''
    ? input.prompt
    : `This continues an earlier conversation, whose session ended. What was said in it:\n\n${history}\n\nThe new message:\n\n${input.prompt}`;
  return { ...(await deliverPrompt(host, as, { agentId: input.agentId, prompt, session: input.session })), resumed: false };
}

/** The last messages of a session, as "user: …" and "you: …" lines, bounded. */
async function transcript(host: HostClient, as: CallAs, sessionId: string): Promise<string> {
  const path = `/api/sessions/${encodeURIComponent(sessionId)}/messages`;
  const counted = await host.call<{ total?: number }>('GET', `${path}?limit=1&total=true`, undefined, as);
  const total = counted.status === 200 ? Number(counted.body?.total ?? 0) : 0;
  if (total === 0) return '';
  const page = await host.call<{ messages?: Array<{ role: string; content: unknown }> }>('GET', `${path}?limit=${HISTORY_MESSAGES}&offset=${Math.max(0, total - HISTORY_MESSAGES)}`, undefined, as);
  const lines = (page.body?.messages ?? [])
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content !== '')
    .map((m) => `${m.role === 'user' ? 'user' : 'you'}: ${(m.content as string).slice(0, HISTORY_MESSAGE_CHARS)}`);
  let text = lines.join('\n\n');
  if (text.length > HISTORY_CHARS) text = `…${text.slice(text.length - HISTORY_CHARS)}`;
  return text;
}
