// A participant's conversation with its agent: one keep-alive session per participant (source
// chainchat), one turn at a time, in the background so one slow agent holds up no other sender. While a
// turn runs, the session's approvals go on-chain with a short id to answer with /approve or /deny.
// Every reply, approval and error goes back on-chain; a turn's cost comes off the participant's credits.
import { askAgent } from '../sessions/contract-reply.js';
import { describeEscalation, watchEscalations, type Escalation } from '../../sdk/bridge/escalations.js';
import type { Account } from './accounts.js';
import type { Standing } from './inbound.js';
import { sendText } from './outbound.js';
import type { State } from './state.js';
import { agentsClient } from '../agents/contract.js';
import { SESSION_ENDED, sessionsClient, type SessionStatus } from '../sessions/contract.js';

const REPLY_TIMEOUT_MS = 10 * 60_000;

/** Queues the text behind the participant's current turn. */
export function converse(s: State, account: Account, address: string, standing: Standing, text: string): void {
  const key = `${account.tenantId}\n${address}`;
  const turns = s.turns;
  const next = (turns.get(key) ?? Promise.resolve())
    .then(() => turn(s, account, address, standing, text))
    .catch((err) => s.ctx.host.log('warn', `chainchat: a turn for ${address} failed: ${(err as Error).message}`));
  turns.set(key, next);
  void next.finally(() => {
    if (turns.get(key) === next) turns.delete(key);
  });
}

/** The participant's agent: the one it chose (/agent), else the tenant's first. */
export async function agentOf(s: State, tenantId: string, address: string): Promise<{ id: string; name: string } | undefined> {
  const chosen = (await s.conversations.participant(tenantId, address))?.agentId;
  const list = await agentsClient(s.ctx.host, { tenantId }).list({ limit: 200 });
  const agents = list.status === 200 ? (list.body?.agents ?? []) : [];
  return agents.find((a) => a.id === chosen) ?? agents[0];
}

async function turn(s: State, account: Account, address: string, standing: Standing, text: string): Promise<void> {
  const tenantId = account.tenantId;
  const as = { tenantId };
  const participant = (await s.conversations.participant(tenantId, address))!;
  if (standing !== 'owner' && participant.credits <= 0) {
    await sendText(s, account, address, `You have no credits left. Send ALGO to ${account.address} to buy more (${s.config.creditsPerMicroAlgo} credit microUnits per microAlgo).`);
    return;
  }
  const agent = await agentOf(s, tenantId, address);
  if (!agent) {
    await sendText(s, account, address, 'There is no agent to talk to yet.');
    return;
  }
  let sessionId = await liveSession(s, tenantId, agent.id === participant.agentId || participant.agentId === null ? participant.sessionId : null);
  const stop = new AbortController();
  const onError = (err: unknown) => s.ctx.host.log('warn', `chainchat: showing an approval failed: ${(err as Error).message}`);
  const show = (entry: Escalation) => showApproval(s, account, address, standing, entry);
  const watching = watchEscalations(s.ctx.host, as, () => sessionId ?? undefined, show, stop.signal, onError);
  try {
    const reply = await askAgent(s.ctx.host, as, {
      agentId: agent.id, prompt: text, timeoutMs: REPLY_TIMEOUT_MS,
      ...(sessionId ? { sessionId } : { session: { source: 'chainchat', name: `Chainchat ${address.slice(0, 8)}` } }),
      onSent: async (sent) => {
        sessionId = sent.sessionId;
        await s.conversations.update(tenantId, address, { sessionId: sent.sessionId, agentId: agent.id });
      },
    });
    if (standing !== 'owner' && reply.cost > 0) await s.conversations.addCredits(tenantId, address, -reply.cost);
    await sendText(s, account, address, reply.text || '(the agent answered with no text)');
  } catch (err) {
    await sendText(s, account, address, `Sorry, that did not work: ${(err as Error).message}`).catch(() => undefined);
  } finally {
    stop.abort();
    await watching;
  }
}

async function liveSession(s: State, tenantId: string, sessionId: string | null): Promise<string | null> {
  if (!sessionId) return null;
  const reply = await sessionsClient(s.ctx.host, { tenantId }).get(sessionId);
  return reply.status !== 200 || SESSION_ENDED.includes(reply.body?.status as SessionStatus) ? null : sessionId;
}

async function showApproval(s: State, account: Account, address: string, standing: Standing, entry: Escalation): Promise<void> {
  const shortId = (await s.inbound.promptFor(account.tenantId, 'approval', entry.id))?.shortId ?? (await s.inbound.addPrompt(account.tenantId, { kind: 'approval', refId: entry.id, address }));
  const who = standing === 'owner' ? '' : ' (an owner address must answer)';
  await sendText(s, account, address, `${describeEscalation(entry)}\nReply /approve ${shortId} or /deny ${shortId}${who}.`);
}
