// Memories on-chain. The memory extension owns memories; chainchat sends one as a note of a 0-ALGO
// payment from the tenant's account to itself, sealed with the account's memory key (derived from its
// secret key, so the mnemonic alone reads them back), then records the txid in the memory
// (PUT /api/internal/memory/agents/:id/memories/:key/txid). Reading back searches the indexer for the
// account's own memory notes; syncing restores the ones missing or different here.
import { RoostError } from '../../protocol/errors.js';
import { MemoryClient, type PlainMemory } from '../memory/contract.js';
import type { Account } from './accounts.js';
import { keyIdOf, NOTE_PREFIX, openNotes, parseNote, sealNotes, type Envelope } from './envelope.js';
import { chainOf } from './chain.js';
import type { State } from './state.js';

export interface OnchainMemory {
  key: string;
  content: string;
  txid: string;
  round: number;
}

type Plain = PlainMemory;

/** A memory is at most 64 KiB, which fits in 255 notes. */
const MEMORY_MAX_CHUNKS = 255;

/** A memory route's answer; an unloaded memory extension is a clear 503. */
async function memoryCall<T>(call: Promise<{ status: number; body: T | null }>): Promise<{ status: number; body: T | null }> {
  const reply = await call;
  const error = reply.body as { code?: string; error?: string } | null;
  if (reply.status === 404 && error?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'on-chain memories need the memory extension, which is not loaded');
  return reply;
}

/** Sends `memory` on-chain and records its txid; answers the txid. */
export async function sendMemory(s: State, account: Account, memory: Plain): Promise<string> {
  const parties = { sender: account.signer.addr.publicKey, receiver: account.signer.addr.publicKey };
  const notes = sealNotes(JSON.stringify(memory), { mode: 'M', secret: account.memoryKey, keyField: keyIdOf(account.memoryKey), parties, maxChunks: MEMORY_MAX_CHUNKS });
  const [txid] = await chainOf(s, account).send(account.signer, account.address, notes);
  const set = await memoryCall(new MemoryClient(s.ctx.host).setTxid(memory.agentId, memory.key, txid!, { tenantId: account.tenantId }));
  if (set.status !== 200) throw new RoostError('UPSTREAM_ERROR', `the memory was sent (${txid}) but its txid could not be recorded: ${set.body?.error ?? set.status}`);
  return txid!;
}

/** The caller's memory by key, sent on-chain. */
export async function promote(s: State, tenantId: string, agentId: string, key: string): Promise<{ key: string; txid: string }> {
  const found = await memoryCall(new MemoryClient(s.ctx.host).recall({ agentId, key }, { tenantId }));
  if (found.status === 404) throw new RoostError('NOT_FOUND', `memory "${key}" not found`);
  if (found.status !== 200 || !found.body?.memory) throw new RoostError(found.body?.code ?? 'UPSTREAM_ERROR', found.body?.error ?? `reading the memory failed (${found.status})`);
  return { key, txid: await sendMemory(s, await s.accounts.of(tenantId), { agentId, key, content: found.body.memory.content }) };
}

/** The agent's memories as the chain holds them: the latest note of each key. */
export async function readOnchain(s: State, tenantId: string, agentId: string): Promise<OnchainMemory[]> {
  const account = await s.accounts.of(tenantId);
  const prefix = Buffer.concat([NOTE_PREFIX, Buffer.from('M', 'latin1'), keyIdOf(account.memoryKey)]);
  const txns = (await chainOf(s, account).sentWithPrefix(account.address, prefix)).filter((t) => t.receiver === account.address);
  const messages = new Map<string, Array<{ envelope: Envelope; txid: string; round: number }>>();
  for (const txn of txns) {
    const envelope = parseNote(txn.note);
    if (!envelope) continue;
    const id = envelope.msgId.toString('hex');
    messages.set(id, [...(messages.get(id) ?? []), { envelope, txid: txn.id, round: txn.round }]);
  }
  const parties = { sender: account.signer.addr.publicKey, receiver: account.signer.addr.publicKey };
  const latest = new Map<string, OnchainMemory>();
  for (const parts of messages.values()) {
    if (parts.length !== parts[0]!.envelope.total) continue;
    let plain: Plain;
    try {
      plain = JSON.parse(openNotes(parts.map((p) => p.envelope), account.memoryKey, parties)) as Plain;
    } catch {
      continue; // not ours to open
    }
    if (plain.agentId !== agentId) continue;
    const first = parts.find((p) => p.envelope.index === 0)!;
    const round = Math.max(...parts.map((p) => p.round));
    const known = latest.get(plain.key);
    if (!known || known.round <= round) latest.set(plain.key, { key: plain.key, content: plain.content, txid: first.txid, round });
  }
  return [...latest.values()].sort((a, b) => a.round - b.round);
}

/** Restores the on-chain memories missing (or different) here; answers what it did. */
export async function syncOnchain(s: State, tenantId: string, agentId: string): Promise<{ restored: string[]; unchanged: string[] }> {
  const as = { tenantId };
  const memories = new MemoryClient(s.ctx.host);
  const restored: string[] = [];
  const unchanged: string[] = [];
  for (const memory of await readOnchain(s, tenantId, agentId)) {
    const local = await memoryCall(memories.recall({ agentId, key: memory.key }, as));
    if (local.status === 200 && local.body?.memory?.content === memory.content) {
      unchanged.push(memory.key);
      continue;
    }
    const saved = await memoryCall(memories.save({ agentId, key: memory.key, content: memory.content }, as));
    if (saved.status !== 200 && saved.status !== 201) throw new RoostError('UPSTREAM_ERROR', `restoring memory "${memory.key}" failed: ${saved.body?.error ?? saved.status}`);
    await memoryCall(memories.setTxid(agentId, memory.key, memory.txid, as));
    restored.push(memory.key);
  }
  return { restored, unchanged };
}

/** Sends every memory of the tenant whose txid is still NULL; stops at the first chain failure. */
export async function backfill(s: State, tenantId: string): Promise<{ sent: Array<{ agentId: string; key: string; txid: string }>; remaining: number; error: string | null }> {
  const account = await s.accounts.of(tenantId);
  const sent: Array<{ agentId: string; key: string; txid: string }> = [];
  let error: string | null = null;
  let pending: Plain[] = [];
  for (;;) {
    const unsent = await memoryCall(new MemoryClient(s.ctx.host).unsent(100, { tenantId }));
    if (unsent.status !== 200) throw new RoostError('UPSTREAM_ERROR', `listing unsent memories failed: ${unsent.body?.error ?? unsent.status}`);
    pending = unsent.body?.memories ?? [];
    if (pending.length === 0 || error) break;
    for (const memory of pending) {
      try {
        sent.push({ agentId: memory.agentId, key: memory.key, txid: await sendMemory(s, account, memory) });
      } catch (err) {
        error = (err as Error).message;
        break;
      }
    }
  }
  return { sent, remaining: pending.length, error };
}
