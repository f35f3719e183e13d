// Asking an agent something and waiting for its answer, through the sessions extension's routes only:
// start a session (or add a user turn to one), then read its stored events until the turn that took the
// message ends. Councils, agent-to-agent messages, A2A tasks, workflows, schedules and chat bridges all
// need exactly this; reading the stored events (rather than a live subscription) means a caller that
// restarted can pick up a session it started before.
import { RoostError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from './host-client.js';

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

interface SessionEvent {
  seq: number;
  type: string;
  [field: string]: unknown;
}

/** Statuses in which a session will not answer until someone acts. */
const STUCK = new Set(['paused', 'error', 'timeout', 'stopped']);
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
  const reply = await host.call<Record<string, unknown>>('POST', '/api/sessions', body, as);
  const session = orThrow(reply, `starting a session for agent ${input.agentId}`);
  return { sessionId: String(session.id), after: 0, session };
}

async function continueSession(host: HostClient, as: CallAs, sessionId: string, prompt: string, reservationId?: string): Promise<Delivery> {
  const reply = await host.call<Record<string, unknown>>('POST', `/api/sessions/${encodeURIComponent(sessionId)}/messages`, { content: prompt, ...(reservationId ? { reservationId } : {}) }, as);
  const body = orThrow(reply, `sending to session ${sessionId}`);
  // Events before our user message belong to earlier turns.
  return { sessionId, after: Number(body.seq) - 1 };
}

/**
 * Reads the session's events after `after` until a turn that started after our message ends with
 * `done`. A paused, failed, timed-out or stopped session is an error naming its status and reason.
 */
export async function waitForReply(host: HostClient, as: CallAs, sessionId: string, after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<AgentReply> {
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
    const reply = await host.call<{ events: SessionEvent[] }>('GET', `/api/sessions/${encodeURIComponent(sessionId)}/events?after=${cursor}&limit=1000&waitMs=${waitMs}&until=${UNTIL}`, undefined, as);
    const events = orThrow(reply, `reading session ${sessionId}`).events;
    for (const event of events) {
      cursor = event.seq;
      if (event.type === 'turn_start') answering = true;
      if (!answering) continue;
      if (event.type === 'assistant_message' && typeof event.text === 'string' && event.text !== '') text.push(event.text);
      if (event.type === 'turn_end') {
        cost += typeof event.cost === 'number' ? event.cost : 0;
        if (event.done === true) return { sessionId, text: text.join('\n\n'), cost };
      }
      if (event.type === 'status' && STUCK.has(String(event.status))) {
        const why = event.reason ? `: ${String(event.reason)}` : '';
        throw new RoostError(typeof event.code === 'string' ? event.code : 'UPSTREAM_ERROR', `session ${sessionId} is ${String(event.status)}${why}`, { status: 502 });
      }
      if (event.type === 'turn_start') text = [];
    }
    if (options.signal?.aborted) throw new RoostError('CANCELLED', `stopped waiting for session ${sessionId}`);
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

function orThrow<T>(reply: { status: number; body: T }, what: string): NonNullable<T> {
  const body = reply.body as Record<string, unknown> | null;
  if (reply.status === 404 && body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the sessions extension, which is not loaded; load it and retry`);
  }
  if (reply.status >= 400 || !body) {
    const code = typeof body?.code === 'string' ? body.code : 'UPSTREAM_ERROR';
    const why = typeof body?.error === 'string' ? body.error : `status ${reply.status}`;
    throw new RoostError(code, `${what} failed: ${why}`, { status: reply.status });
  }
  return reply.body as NonNullable<T>;
}
