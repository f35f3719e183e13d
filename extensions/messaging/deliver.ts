// The one path every message takes — svc_send_message, POST /api/mcp/send-message, POST
// /api/agents/:id/invoke and WebSocket agent_invoke: resolve both agents in the caller's tenant, find or
// open the thread, apply the loop limits (limits.ts: per sending session, else per sending agent or
// caller), start the recipient's session (source "agent") or continue the thread's — resuming it, or
// replacing it with one that carries the conversation, when it ended — record the message in the
// agents extension's store, and have chainchat send it on-chain (onchain.ts).
import { randomUUID } from 'node:crypto';
import { RoostError, conflict, validationError } from '../../protocol/errors.js';
import { continueConversation, deliverPrompt, type Delivery } from '../sessions/contract-reply.js';
import { recordAgentMessage as recordMessage, resolveAgent, type AgentMessage as StoredMessage, type AgentRef } from '../agents/contract.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { SESSION_LIVE, sessionsClient } from '../sessions/contract.js';
import { SendLedger, limitError, type Sender } from './limits.js';
import { sendOnchain } from './onchain.js';
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
  /** Who calls (the actor of the key or token): a person's or script's sends are counted by it. */
  caller: string;
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
  const sender: Sender = out.senderSessionId
    ? { kind: 'session', sessionId: out.senderSessionId }
    : from ? { kind: 'agent', agentId: from.id, name: from.name } : { kind: 'caller', actor: out.caller };
  // The hop this message is: one past the chain that reached the sender, and never shallower than the
  // thread already is (an old thread continued from deep in a chain is as deep as that chain).
  const depth = Math.max((await chainDepth(ctx, tenantId, as, sender)) + 1, existing?.depth ?? 0);
  if (depth > settings.maxDepth) {
    throw limitError('depth', `this message would be hop ${depth} of a chain of agent-to-agent messages; chains may be at most ${settings.maxDepth} deep`, { max: settings.maxDepth });
  }

  const ledger = new SendLedger(ctx.db);
  // A person or script starts chains; loops run between agents, so only agents' sends are counted
  // (people and scripts have the kernel's rate limit).
  const reservation = sender.kind === 'caller' ? null : await ledger.reserve(tenantId, sender, to.id, settings, now);
  let delivery: Delivery & { resumed?: boolean };
  try {
    delivery = existing
      ? await continueConversation(ctx.host, as, { agentId: to.id, sessionId: existing.sessionId, prompt: out.content, session: { source: 'agent' } })
      : await deliverPrompt(ctx.host, as, { agentId: to.id, prompt: out.content, session: { source: 'agent' } });
  } catch (err) {
    if (reservation) await ledger.release(reservation);
    throw err;
  }
  if (!existing) await threads.create(tenantId, { id: threadId, from: from?.id ?? null, to: to.id, sessionId: delivery.sessionId, depth });
  else if (delivery.sessionId !== existing.sessionId || depth > existing.depth) await threads.move(tenantId, threadId, delivery.sessionId, depth);
  const message = await sendOnchain(ctx, as, await recordMessage(ctx.host, as, { from: from?.id ?? null, to: to.id, content: out.content, sessionId: delivery.sessionId, thread: threadId }));
  ctx.host.audit('message.send', `agent:${to.id}`, {
    from: from?.id ?? null, thread: threadId, sessionId: delivery.sessionId, depth,
    ...(existing && delivery.sessionId !== existing.sessionId ? { replacedSession: existing.sessionId } : {}),
    ...(delivery.resumed ? { resumedSession: true } : {}),
  });
  return { message, from, to, thread: threadId, sessionId: delivery.sessionId, after: delivery.after, session: delivery.session ?? null, settings };
}

/**
 * How many agent→agent hops led to the sender: for a session, the hop that started it (0 for one this
 * extension did not start); for an agent named without its session, the deepest of its live sessions
 * (it may be sending from any of them); a person or script starts a chain (0).
 */
async function chainDepth(ctx: ExtensionContext, tenantId: string, as: CallAs, sender: Sender): Promise<number> {
  const threads = new ThreadStore(ctx.db);
  if (sender.kind === 'session') return threads.depthOf(tenantId, [sender.sessionId]);
  if (sender.kind === 'caller') return 0;
  const reply = await sessionsClient(ctx.host, as).list({ agentId: sender.agentId, limit: 200 });
  if (reply.status !== 200 || !reply.body) {
    const missing = reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND';
    throw new RoostError(missing ? 'EXTENSION_UNAVAILABLE' : 'UPSTREAM_ERROR', missing
      ? 'delivering a message needs the sessions extension, which is not loaded; load it and retry'
      : `looking up the sessions of agent ${sender.name} failed: ${String(reply.body?.error ?? `status ${reply.status}`)}`);
  }
  const live = reply.body.sessions.filter((s) => SESSION_LIVE.includes(s.status)).map((s) => s.id);
  return threads.depthOf(tenantId, live);
}

/** A thread is one conversation between one sender and one recipient. */
function mustBelong(thread: Thread, from: AgentRef | null, to: AgentRef): void {
  if (thread.to !== to.id) throw conflict(`thread ${thread.id} is a conversation with agent ${thread.to}; use another thread to message ${to.name}`);
  if (thread.from !== (from?.id ?? null)) {
    throw new RoostError('CONFLICT', `thread ${thread.id} belongs to another sender (${thread.from ?? 'a person'}); use another thread`);
  }
}
