// An agent's memories: save (upsert by key), recall (exact key, keyword search, or the latest), delete.
// Shared by the MCP tools, the MCP HTTP API and the REST routes, so all three behave alike.
import type { Knex } from 'knex';
import { notFound } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Keyring } from './keyring.js';
import { Shelf, type ShelfRecord } from './shelf.js';

export interface AgentRef {
  tenantId: string;
  agentId: string;
}

export interface Memory {
  key: string;
  content: string;
  txid: string | null;
  accessCount: number;
  lastAccessedAt: string | null;
  createdAt: string;
  updatedAt: string;
  score?: number;
}

/** What a recall without a key or query answers: the latest memories. */
const RECALL_LATEST = 20;

export async function memoryShelf(ctx: ExtensionContext, keyring: Keyring): Promise<Shelf> {
  return new Shelf(ctx, await keyring.sealer(), 'memories');
}

const ownerOf = (agent: AgentRef) => ({ tenantId: agent.tenantId, ownerId: agent.agentId });

export function toMemory(record: ShelfRecord): Memory {
  return {
    key: record.name,
    content: record.content,
    txid: record.txid,
    accessCount: record.accessCount,
    lastAccessedAt: record.lastAccessedAt,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.rank === undefined ? {} : { score: record.rank }),
  };
}

/** Upserts the memory `key`; `db` may be a transaction it belongs to. */
export async function saveMemory(ctx: ExtensionContext, keyring: Keyring, agent: AgentRef, key: string, content: string, db?: Knex): Promise<{ memory: Memory; created: boolean }> {
  const { record, created } = await (await memoryShelf(ctx, keyring)).put(ownerOf(agent), key, content, {}, [], db);
  return { memory: toMemory(record), created };
}

export type Recall = { memory: Memory } | { query: string | null; memories: Memory[] };

/** By key (404 when there is none), by keyword query (best match first), or the latest; counts what it returns as recalled. */
export async function recallMemory(ctx: ExtensionContext, keyring: Keyring, agent: AgentRef, ask: { key?: string; query?: string; limit?: number }): Promise<Recall> {
  const shelf = await memoryShelf(ctx, keyring);
  if (ask.key !== undefined) {
    const record = await shelf.get(ownerOf(agent), ask.key, true);
    if (!record) throw notFound(`memory "${ask.key}"`);
    return { memory: toMemory(record) };
  }
  const { records } = await shelf.find(ownerOf(agent), { query: ask.query, limit: ask.limit ?? RECALL_LATEST, offset: 0 });
  await shelf.touch(records.map((r) => r.id));
  return { query: ask.query ?? null, memories: records.map(toMemory) };
}

export async function deleteMemory(ctx: ExtensionContext, keyring: Keyring, agent: AgentRef, key: string): Promise<void> {
  if (!(await (await memoryShelf(ctx, keyring)).remove(ownerOf(agent), key))) throw notFound(`memory "${key}"`);
}
