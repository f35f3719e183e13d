// The sessions extension's contract: what other extensions may rely on. Its routes' paths (built here
// and nowhere else), the records they answer, the status vocabulary, the bus topics it emits, and a thin
// typed client over the host client. Callers import this module instead of writing a sessions URL; it
// imports nothing of the extension's internals (the extension types its handlers with it).
// Asking an agent and waiting for its reply, on top of this client, is in contract-reply.ts.
import { upstreamError, type CallAs, type HostClient, type RouteAnswer } from '../../sdk/host-client.js';
import { callRoute, type RouteRequest } from '../../sdk/route-call.js';

/** The routes others may call, each named as plugin.toml declares it (sdk/route-call.ts fills in a path). */
export const SESSIONS_ROUTES = {
  list: 'GET /api/sessions',
  create: 'POST /api/sessions',
  get: 'GET /api/sessions/:id',
  remove: 'DELETE /api/sessions/:id',
  messages: 'GET /api/sessions/:id/messages',
  send: 'POST /api/sessions/:id/messages',
  events: 'GET /api/sessions/:id/events',
  stop: 'POST /api/sessions/:id/stop',
  resume: 'POST /api/sessions/:id/resume',
  escalations: 'GET /api/escalation-queue',
  resolveEscalation: 'POST /api/escalation-queue/:id/resolve',
} as const;

/** The queries of the routes that take one. */
export interface SessionListQuery { agentId?: string; projectId?: string; status?: SessionStatus; limit?: number; offset?: number; total?: boolean }
export interface SessionMessagesQuery { limit?: number; offset?: number; total?: boolean }
export interface SessionEventsQuery { after?: number; limit?: number; waitMs?: number; until?: string }
export interface EscalationsQuery { sessionId?: string; limit?: number; offset?: number }

export const SESSION_STATUSES = ['created', 'running', 'paused', 'resumed', 'timeout', 'stopped', 'error'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
/** Sessions that still own (or will own again) a runner. */
export const SESSION_LIVE: readonly SessionStatus[] = ['created', 'running', 'resumed', 'paused'];
/** Sessions in these states are over: they answer no new turn until resumed (error, timeout) or never. */
export const SESSION_ENDED: readonly SessionStatus[] = ['stopped', 'error', 'timeout'];
/** Statuses in which a session will not answer until someone acts. */
export const SESSION_STUCK: readonly SessionStatus[] = ['paused', 'error', 'timeout', 'stopped'];

/** Bus topics the extension emits. */
export const SESSION_TOPICS = {
  /** `{session}` (a SessionRecord) whenever a session's status changes. */
  lifecycle: 'sessions.lifecycle',
  /** `{sessionId, agentId, toolName, behavior, by, asked}` for each approval decided. */
  approval: 'sessions.approval',
  /** One session's stream: its events and approval prompts, for subscribers. */
  stream: (sessionId: string) => `session.${sessionId}`,
};

/** A session as its routes answer it. */
export interface SessionRecord {
  id: string;
  name: string;
  agentId: string;
  projectId: string | null;
  source: string;
  status: SessionStatus;
  statusCode: string | null;
  statusReason: string | null;
  pid: number | null;
  busy: boolean;
  provider: string;
  model: string;
  workingDir: string;
  turns: number;
  contextTurns: number;
  turnsPerContext: number;
  contextResets: number;
  /** MicroUnits the session was charged. */
  cost: number;
  usage: { inputTokens: number; outputTokens: number };
  pendingMessages: number;
  timeoutMinutes: number;
  timeoutAt: string | null;
  approvalTimeoutSeconds: number;
  resumeUnitMs: number;
  resumeAttempts: number;
  nextResumeAt: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

/** One event of a session's ordered stream (GET …/events, and the WebSocket carries the same). */
export interface SessionEvent {
  seq: number;
  type: string;
  turn: number;
  at: string;
  [field: string]: unknown;
}

/** One message of a session's conversation (GET …/messages). */
export interface SessionMessage {
  role: string;
  content: unknown;
  [field: string]: unknown;
}

export type EscalationReason = 'timeout' | 'queued';
export type EscalationStatus = 'pending' | 'allowed' | 'denied';

/** An escalation: a tool use nobody answered in time, or one held while the server is in mode `queued`. */
export interface EscalationEntry {
  id: string;
  sessionId: string;
  agentId: string;
  toolName: string;
  toolKind: string;
  input: Record<string, unknown>;
  reason: EscalationReason;
  status: EscalationStatus;
  resolvedBy: string | null;
  grantUsed: boolean;
  createdAt: string;
  resolvedAt: string | null;
}

/** The body of POST /api/sessions; fields beyond agentId are the session's own (see session-create.json). */
export interface SessionCreate {
  agentId: string;
  initialPrompt?: string;
  name?: string;
  source?: string;
  projectId?: string;
  reservationId?: string;
  [field: string]: unknown;
}

/** Refusals carry `error` and `code`; the client's answers are typed as the success body or that. */
export type Refusal = { error?: string; code?: string };

/** The sessions routes, called as `as` (the request being served or a tenant). Answers are passed on as they come. */
export function sessionsClient(host: HostClient, as: CallAs) {
  const call = <T>(route: (typeof SESSIONS_ROUTES)[keyof typeof SESSIONS_ROUTES], request: RouteRequest = {}) => callRoute<(T & Refusal) | null>(host, route, request, as);
  return {
    list: (query: SessionListQuery = {}) => call<{ sessions: SessionRecord[]; total?: number; hasMore: boolean }>(SESSIONS_ROUTES.list, { query: { ...query } }),
    create: (body: SessionCreate) => call<SessionRecord>(SESSIONS_ROUTES.create, { body }),
    get: (id: string) => call<SessionRecord>(SESSIONS_ROUTES.get, { params: { id } }),
    remove: (id: string) => call<Refusal>(SESSIONS_ROUTES.remove, { params: { id } }),
    stop: (id: string) => call<SessionRecord>(SESSIONS_ROUTES.stop, { params: { id }, body: {} }),
    resume: (id: string) => call<SessionRecord>(SESSIONS_ROUTES.resume, { params: { id }, body: {} }),
    messages: (id: string, query: SessionMessagesQuery = {}) => call<{ messages: SessionMessage[]; total?: number }>(SESSIONS_ROUTES.messages, { params: { id }, query: { ...query } }),
    send: (id: string, body: { content: string; reservationId?: string }) => call<{ seq: number }>(SESSIONS_ROUTES.send, { params: { id }, body }),
    events: (id: string, query: SessionEventsQuery = {}, signal?: AbortSignal) => call<{ events: SessionEvent[] }>(SESSIONS_ROUTES.events, { params: { id }, query: { ...query }, signal }),
    escalations: (query: EscalationsQuery = {}) => call<{ entries: EscalationEntry[]; total?: number; hasMore: boolean }>(SESSIONS_ROUTES.escalations, { query: { ...query } }),
    resolveEscalation: (id: string, behavior: 'allow' | 'deny') => call<EscalationEntry>(SESSIONS_ROUTES.resolveEscalation, { params: { id }, body: { behavior } }),
  };
}

/** The body of a successful answer, else the refusal as an error naming `what` (and the sessions extension when it is not loaded). */
export function sessionsAnswer<T>(reply: RouteAnswer<T | null>, what: string): T {
  if (reply.status >= 400 || !reply.body) throw upstreamError(reply, what, 'sessions');
  return reply.body;
}
