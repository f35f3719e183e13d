// Asking an agent something and waiting for its answer, through the sessions contract only: start a
// session (or add a user turn to one), then read its stored events until the turn that took the
// message ends. Councils, agent-to-agent messages, A2A tasks, workflows, schedules and chat bridges all
// need exactly this; reading the stored events (rather than a live subscription) means a caller that
// restarted can pick up a session it started before.
import { RoostError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { SESSION_STUCK, sessionsAnswer, sessionsClient } from './contract.js';

export interface AskInput {
  agentId: string;
  prompt: string;
  /** Continue this session instead of starting one. */
  sessionId?: string;
  /** Session fields for a new session: source (web, agent, chainchat), projectId, name, timeoutMinutes… */
  session?: Record<string, unknown>;
  /** Credits already reserved for the turn that answers the prompt (the credits extension's reservation id). */
  reservationId?: string;
  /** How long to wait for the reply (default 10 minutes). */
  timeoutMs?: number;
  /** Stop waiting when this fires (the session itself goes on). */
  signal?: AbortSignal;
  /** Told where the answer will come before the wait, so a caller that restarts can waitForReply again. */
  onSent?: (sent: { sessionId: string; after: number }) => Promise<void> | void;
}

export interface AgentReply {
  sessionId: string;
  /** The agent's answer: the text of the last turn that answered the prompt (earlier turns led to tool uses). */
  text: string;
  /** MicroUnits charged for those turns. */
  cost: number;
}

/** How long one read of the session's events may wait for the next (the sessions route allows 15 s). */
const LONG_POLL_MS = 10_000;
/** The events that can end a wait for a reply: a read need not wake for each streamed delta before them. */
const UNTIL = 'turn_end,status';

export async function askAgent(host: HostClient, as: CallAs, input: AskInput): Promise<AgentReply> {
  const { sessionId, after } = await deliverPrompt(host, as, input);
  await input.onSent?.({ sessionId, after });
  return waitForReply(host, as, sessionId, after, { timeoutMs: input.timeoutMs ?? 600_000, ...(input.signal ? { signal: input.signal } : {}) });
}

export interface Delivery {
  sessionId: string;
  /** The last event before the prompt: pass to waitForReply. */
  after: number;
  /** The new session as the sessions extension answered it (absent when a session was continued). */
  session?: Record<string, unknown>;
}

/** The first half of askAgent, for callers that wait later or not at all: start or continue the session. */
export async function deliverPrompt(host: HostClient, as: CallAs, input: Pick<AskInput, 'agentId' | 'prompt' | 'sessionId' | 'session' | 'reservationId'>): Promise<Delivery> {
  return input.sessionId ? continueSession(host, as, input.sessionId, input.prompt, input.reservationId) : startSession(host, as, input);
}

async function startSession(host: HostClient, as: CallAs, input: Pick<AskInput, 'agentId' | 'prompt' | 'session' | 'reservationId'>): Promise<Delivery> {
  const body = { ...input.session, agentId: input.agentId, initialPrompt: input.prompt, ...(input.reservationId ? { reservationId: input.reservationId } : {}) };
  const session = sessionsAnswer(await sessionsClient(host, as).create(body), `starting a session for agent ${input.agentId}`);
  return { sessionId: String(session.id), after: 0, session: session as unknown as Record<string, unknown> };
}

async function continueSession(host: HostClient, as: CallAs, sessionId: string, prompt: string, reservationId?: string): Promise<Delivery> {
  const reply = await sessionsClient(host, as).send(sessionId, { content: prompt, ...(reservationId ? { reservationId } : {}) });
  const body = sessionsAnswer(reply, `sending to session ${sessionId}`);
  // Events before our user message belong to earlier turns.
  return { sessionId, after: Number(body.seq) - 1 };
}

/**
 * Reads the session's events after `after` until a turn that started after our message ends with
 * `done`. A paused, failed, timed-out or stopped session is an error naming its status and reason.
 */
export async function waitForReply(host: HostClient, as: CallAs, sessionId: string, after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<AgentReply> {
  const sessions = sessionsClient(host, as);
  const deadline = Date.now() + options.timeoutMs;
  let cursor = after;
  let answering = false;
  let text: string[] = [];
  let cost = 0;
  for (let delay = 20; ; ) {
    // A long poll: the sessions extension answers as soon as an event past the cursor comes (waitMs),
    // so a reply is read the moment its turn ends. A session run by another instance answers at once;
    // then the backoff spaces the reads.
    const waitMs = Math.max(0, Math.min(LONG_POLL_MS, deadline - Date.now()));
    const asked = Date.now();
    const reply = await sessions.events(sessionId, { after: cursor, limit: 1000, waitMs, until: UNTIL }, options.signal).catch((err: unknown) => {
      // A caller that stops waiting need not sit out the poll: the call ends the moment it aborts.
      throw options.signal?.aborted ? stoppedWaiting(sessionId) : err;
    });
    const events = sessionsAnswer(reply, `reading session ${sessionId}`).events;
    for (const event of events) {
      cursor = event.seq;
      if (event.type === 'turn_start') answering = true;
      if (!answering) continue;
      if (event.type === 'assistant_message' && typeof event.text === 'string' && event.text !== '') text.push(event.text);
      if (event.type === 'turn_end') {
        cost += typeof event.cost === 'number' ? event.cost : 0;
        if (event.done === true) return { sessionId, text: text.join('\n\n'), cost };
      }
      if (event.type === 'status' && (SESSION_STUCK as readonly string[]).includes(String(event.status))) {
        const why = event.reason ? `: ${String(event.reason)}` : '';
        throw new RoostError(typeof event.code === 'string' ? event.code : 'UPSTREAM_ERROR', `session ${sessionId} is ${String(event.status)}${why}`, { status: 502 });
      }
      if (event.type === 'turn_start') text = [];
    }
    if (options.signal?.aborted) throw stoppedWaiting(sessionId);
    if (Date.now() >= deadline) throw new RoostError('TIMEOUT', `session ${sessionId} did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
    const waited = Date.now() - asked >= waitMs / 2;
    if (events.length > 0 || waited) {
      delay = 20;
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
    delay = Math.min(delay * 2, 500);
  }
}

const stoppedWaiting = (sessionId: string) => new RoostError('CANCELLED', `stopped waiting for session ${sessionId}`);

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

/**
 * Continuing a conversation with an agent whose session may have ended (agent-to-agent threads, A2A
 * contexts): the message becomes a new user turn of the conversation's session; a session that timed out
 * or failed is resumed first; one that was stopped, deleted or cannot be resumed is replaced by a new
 * session of the agent, whose first prompt carries the conversation so far (the old session's
 * transcript). Where the reply will come: `sessionId` differs from the one given when a new session took over.
 */
export async function continueConversation(host: HostClient, as: CallAs, input: Continuation): Promise<Delivery & { resumed: boolean }> {
  const attempt = () => deliverPrompt(host, as, { agentId: input.agentId, prompt: input.prompt, sessionId: input.sessionId });
  try {
    return { ...(await attempt()), resumed: false };
  } catch (err) {
    // CONFLICT: the session is not live (timed out, failed, stopped); NOT_FOUND: it was deleted.
    if (!(err instanceof RoostError) || (err.code !== 'CONFLICT' && err.code !== 'NOT_FOUND')) throw err;
  }
  const sessions = sessionsClient(host, as);
  const current = await sessions.get(input.sessionId);
  const status = current.status === 200 ? current.body?.status : undefined;
  if (status === 'timeout' || status === 'error') {
    const resumed = await sessions.resume(input.sessionId);
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
  const sessions = sessionsClient(host, as);
  const counted = await sessions.messages(sessionId, { limit: 1, total: true });
  const total = counted.status === 200 ? Number(counted.body?.total ?? 0) : 0;
  if (total === 0) return '';
  const page = await sessions.messages(sessionId, { limit: HISTORY_MESSAGES, offset: Math.max(0, total - HISTORY_MESSAGES) });
  const lines = (page.body?.messages ?? [])
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content !== '')
    .map((m) => `${m.role === 'user' ? 'user' : 'you'}: ${(m.content as string).slice(0, HISTORY_MESSAGE_CHARS)}`);
  let text = lines.join('\n\n');
  if (text.length > HISTORY_CHARS) text = `…${text.slice(text.length - HISTORY_CHARS)}`;
  return text;
}
