// The one path every message takes — svc_send_message, POST /api/mcp/send-message, POST
// /api/agents/:id/invoke and WebSocket agent_invoke: resolve both agents in the caller's tenant, find or
// open the thread, apply the loop limits, start the recipient's session (source "agent") or continue the
// thread's session, and record the message in the agents extension's store.
import { randomUUID } from 'node:crypto';
import { RoostError, conflict, validationError } from '../../protocol/errors.js';
import { deliverPrompt } from '../_shared/agent-reply.js';
import type { ExtensionContext } from '../_shared/extension.js';
import type { CallAs } from '../_shared/host-client.js';
import { resolveAgent, type AgentRef } from '../_shared/agent-lookup.js';
import { recordMessage, type StoredMessage } from './agents-client.js';
import { SendLedger, limitError } from './limits.js';
import { SettingsStore, type MessagingSettings } from './settings.js';
import { ThreadStore, type Thread } from './threads.js';

export interface Outgoing {
  /** Sender agent (id or name), or null for a person or script. */
  from: string | null;
  /** Recipient agent (id or name). */
  to: string;
  content: string;
  thread?: string;
  /** The session the sender runs in, when an agent sends from a session: the loop limits count per session. */
  senderSessionId?: string | null;
}

export interface Delivered {
  message: StoredMessage;
  from: AgentRef | null;
  to: AgentRef;
  thread: string;
  sessionId: string;
  /** The recipient's session's last event before this message (for waitForReply). */
  after: number;
  /** The new session as the sessions extension answered it; null when the thread's session was continued. */
  session: Record<string, unknown> | null;
  settings: MessagingSettings;
}

export async function deliver(ctx: ExtensionContext, tenantId: string, as: CallAs, out: Outgoing, now = Date.now()): Promise<Delivered> {
  const to = await resolveAgent(ctx.host, as, out.to);
  const from = out.from === null ? null : await resolveAgent(ctx.host, as, out.from);
  if (from?.id === to.id) throw validationError(`an agent cannot message itself: the sender and the recipient are both ${to.name}`);

  const threads = new ThreadStore(ctx.db);
  const settings = await new SettingsStore(ctx.db).get(tenantId);
  const threadId = out.thread ?? randomUUID();
  const existing = await threads.get(tenantId, threadId);
  if (existing) mustBelong(existing, from, to);
  const senderSession = out.senderSessionId ?? null;
  const depth = existing ? existing.depth : (senderSession ? await threads.depthOf(tenantId, senderSession) : 0) + 1;
  if (depth > settings.maxDepth) {
    throw limitError('depth', `this message would be hop ${depth} of a chain of agent-to-agent messages; chains may be at most ${settings.maxDepth} deep`, { max: settings.maxDepth });
  }

  const ledger = new SendLedger(ctx.db);
  const reservation = senderSession ? await ledger.reserve(tenantId, senderSession, to.id, settings, now) : undefined;
  let delivery;
  try {
    delivery = await deliverPrompt(ctx.host, as, { agentId: to.id, prompt: out.content, ...(existing ? { sessionId: existing.sessionId } : { session: { source: 'agent' } }) });
  } catch (err) {
    if (reservation) await ledger.release(reservation);
    throw err;
  }
  if (!existing) await threads.create(tenantId, { id: threadId, from: from?.id ?? null, to: to.id, sessionId: delivery.sessionId, depth });
  const message = await recordMessage(ctx.host, as, { from: from?.id ?? null, to: to.id, content: out.content, sessionId: delivery.sessionId, thread: threadId });
  ctx.host.audit('message.send', `agent:${to.id}`, { from: from?.id ?? null, thread: threadId, sessionId: delivery.sessionId, depth });
  return { message, from, to, thread: threadId, sessionId: delivery.sessionId, after: delivery.after, session: delivery.session ?? null, settings };
}

/** A thread is one conversation between one sender and one recipient. */
function mustBelong(thread: Thread, from: AgentRef | null, to: AgentRef): void {
  if (thread.to !== to.id) throw conflict(`thread ${thread.id} is a conversation with agent ${thread.to}; use another thread to message ${to.name}`);
  if (thread.from !== (from?.id ?? null)) {
    throw new RoostError('CONFLICT', `thread ${thread.id} belongs to another sender (${thread.from ?? 'a person'}); use another thread`);
  }
}
