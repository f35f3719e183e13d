// One chat message to the agent of a conversation and its answer: the conversation's session is reused
// while it lives (a stopped, failed or timed-out one is replaced), its mapping is stored before the
// agent answers (a restart keeps the thread on its session), and the session's approvals are shown in
// chat while the turn runs.
import { RoostError } from '../../protocol/errors.js';
import { askAgent, type AgentReply } from '../../extensions/sessions/contract-reply.js';
import type { ExtensionContext } from '../extension.js';
import { sessionLive } from './contract.js';
import { watchEscalations, type Escalation } from './escalations.js';
import type { BridgeStore } from './store.js';
import { sessionsClient } from '../../extensions/sessions/contract.js';

export interface ChatTurn {
  tenantId: string;
  conversationId: string;
  channelId: string;
  threadId: string | null;
  /** The agent for a new conversation (a stored conversation keeps its own). */
  agentId: string;
  title: string;
  prompt: string;
}

export async function converse(ctx: ExtensionContext, store: BridgeStore, turn: ChatTurn, showEscalation: (entry: Escalation) => Promise<void>): Promise<AgentReply> {
  const as = { tenantId: turn.tenantId };
  const existing = await store.conversation(turn.tenantId, turn.conversationId);
  const agentId = existing?.agentId ?? turn.agentId;
  let sessionId = (await sessionLive(ctx.host, turn.tenantId, existing?.sessionId ?? null)) ? existing!.sessionId! : undefined;
  if (!sessionId) {
    const reply = await sessionsClient(ctx.host, as).create({ agentId, name: `${store.bridge}: ${turn.title}`.slice(0, 200), source: 'web' });
    if (reply.status !== 201 || !reply.body?.id) {
      throw new RoostError(reply.body?.code ?? 'UPSTREAM_ERROR', `starting a session for agent ${agentId} failed: ${reply.body?.error ?? `status ${reply.status}`}`, { status: reply.status });
    }
    sessionId = reply.body.id;
  }
  await store.upsertConversation(turn.tenantId, { conversationId: turn.conversationId, channelId: turn.channelId, threadId: turn.threadId, agentId, sessionId, title: existing?.title ?? turn.title });
  const stop = new AbortController();
  const onError = (err: unknown) => ctx.host.log('warn', `${store.bridge}: showing an approval failed: ${(err as Error).message}`);
  const watching = watchEscalations(ctx.host, as, () => sessionId, showEscalation, stop.signal, onError);
  try {
    return await askAgent(ctx.host, as, { agentId, prompt: turn.prompt, sessionId });
  } finally {
    stop.abort();
    await watching;
    await store.touch(turn.tenantId, turn.conversationId);
  }
}
