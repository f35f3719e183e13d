// Every agent-to-agent message (and each reply) is also sent on-chain when chainchat is set up for the
// tenant: chainchat queues it and sends it in the background (a slow or failing chain holds up no
// delivery and loses no message), then records its txid on the message. Until then the message's
// `txidReason` says why it has none, as chainchat answered (or that chainchat is not loaded).
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { agentsClient, type AgentMessage } from '../agents/contract.js';
import { chainchatClient } from '../chainchat/contract.js';

const NOT_LOADED = 'not sent on-chain: the chainchat extension is not loaded';

export async function sendOnchain(ctx: ExtensionContext, as: CallAs, message: AgentMessage): Promise<AgentMessage> {
  const { id, from, to, content, thread, createdAt } = message;
  let txidReason: string;
  try {
    const reply = await chainchatClient(ctx.host, as).sendAgentMessage({ id, from, to, content, thread, createdAt });
    if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') txidReason = NOT_LOADED;
    else if (reply.status === 200 && reply.body) txidReason = reply.body.reason ?? 'queued to be sent on-chain';
    else txidReason = `not sent on-chain: chainchat answered ${reply.status} (${reply.body?.error ?? 'no reason given'})`;
  } catch (err) {
    txidReason = `not sent on-chain: chainchat could not be asked (${(err as Error).message})`;
  }
  // chainchat may have sent it, or failed and said so, already: a first answer never replaces what it recorded.
  const set = await agentsClient(ctx.host, as).setMessageTxid(id, { txid: null, txidReason, first: true }).catch(() => undefined);
  if (set?.status === 200 && set.body) return set.body;
  ctx.host.log('warn', `messaging: recording why message ${id} has no txid failed (status ${set?.status ?? 'none'})`);
  return { ...message, txidReason };
}
