// Agent-to-agent messages on-chain. The messaging extension hands each message here (through the
// contract); when the tenant has set chainchat up it is queued, sealed, in cc_agent_messages and the
// poller sends it — a 0-ALGO payment from the tenant's account to itself, its note sealed with the
// account's agent-message key (as memories are with theirs) — then records the txid on the message in
// the agents extension's store. A chain failure leaves it queued and says so on the message; the next
// tick tries again, oldest first. A txid sent but not yet recorded is kept so it is never sent twice.
import { agentsClient } from '../agents/contract.js';
import type { Account } from './accounts.js';
import { chainOf } from './chain.js';
import type { AgentMessageOnchain, AgentMessageQueued } from './contract.js';
import { keyIdOf, sealNotes } from './envelope.js';
import type { State } from './state.js';

const NOT_SET_UP = 'not sent on-chain: chainchat is not set up for this tenant (the owner chooses its network: POST /api/chainchat/network)';
const QUEUED = 'queued to be sent on-chain';
/** At most this many notes a message: longer ones are not sent, and say so. */
const MAX_CHUNKS = 255;
const BATCH = 20;

interface Row {
  message_id: string;
  body_enc: string;
  txid: string | null;
  attempts: number;
  last_error: string | null;
}

const context = (tenantId: string, id: string) => `chainchat agent message\0${tenantId}\0${id}`;

export async function queueAgentMessage(s: State, tenantId: string, message: AgentMessageOnchain): Promise<AgentMessageQueued> {
  if (!(await s.accounts.find(tenantId))) return { queued: false, reason: NOT_SET_UP };
  await s.ctx.db('cc_agent_messages')
    .insert({ tenant_id: tenantId, message_id: message.id, body_enc: s.sealer.seal(JSON.stringify(message), context(tenantId, message.id)), attempts: 0, created_at: new Date().toISOString() })
    .onConflict(['tenant_id', 'message_id']).ignore();
  return { queued: true, reason: QUEUED };
}

/** Sends the tenant's queued messages, oldest first, stopping at the first chain failure. */
export async function flushAgentMessages(s: State, account: Account): Promise<void> {
  const tenantId = account.tenantId;
  const rows: Row[] = await s.ctx.db('cc_agent_messages').where({ tenant_id: tenantId }).orderBy([{ column: 'created_at' }, { column: 'message_id' }]).limit(BATCH);
  for (const row of rows) {
    const done = (change: { txid: string | null; txidReason: string | null }) => record(s, tenantId, row.message_id, change);
    let txid = row.txid;
    if (!txid) {
      const message = JSON.parse(s.sealer.open(row.body_enc, context(tenantId, row.message_id))) as AgentMessageOnchain;
      const parties = { sender: account.signer.addr.publicKey, receiver: account.signer.addr.publicKey };
      let notes: Uint8Array[];
      try {
        notes = sealNotes(JSON.stringify({ type: 'agent_message', ...message }), { mode: 'M', secret: account.agentMessageKey, keyField: keyIdOf(account.agentMessageKey), parties, maxChunks: MAX_CHUNKS });
      } catch (err) {
        if (await done({ txid: null, txidReason: `not sent on-chain: ${(err as Error).message}` })) await forget(s, tenantId, row.message_id);
        continue;
      }
      try {
        [txid = null] = await chainOf(s, account).send(account.signer, account.address, notes);
      } catch (err) {
        const why = (err as Error).message;
        await s.ctx.db('cc_agent_messages').where({ tenant_id: tenantId, message_id: row.message_id }).update({ attempts: row.attempts + 1, last_error: why });
        if (why !== row.last_error) await done({ txid: null, txidReason: `queued: sending on-chain failed, retrying (${why})` });
        return;
      }
      await s.ctx.db('cc_agent_messages').where({ tenant_id: tenantId, message_id: row.message_id }).update({ txid });
    }
    if (await done({ txid, txidReason: null })) await forget(s, tenantId, row.message_id);
  }
}

/** Records on the message; true when the agents extension took it (or the message is gone). */
async function record(s: State, tenantId: string, id: string, change: { txid: string | null; txidReason: string | null }): Promise<boolean> {
  const reply = await agentsClient(s.ctx.host, { tenantId }).setMessageTxid(id, change);
  if (reply.status === 200 || (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND')) return true;
  s.ctx.host.log('warn', `chainchat: recording the txid of agent message ${id} failed (${reply.status}); trying again next tick`);
  return false;
}

async function forget(s: State, tenantId: string, id: string): Promise<void> {
  await s.ctx.db('cc_agent_messages').where({ tenant_id: tenantId, message_id: id }).delete();
}
