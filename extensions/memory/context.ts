// The memories a new session's system prompt carries: those matching the session's first prompt,
// best first, then the most recalled and most recent, within a character budget.
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Keyring } from './keyring.js';
import { memoryShelf, type AgentRef } from './memories.js';
import { contextMemoriesOf } from './settings.js';

export const MAX_CONTEXT_MEMORIES = 20;
/** A memory longer than this is cut in the prompt (the agent can recall all of it by key). */
const MEMORY_CHARS = 1_000;
/** The whole block stays under this, whatever the memories' lengths. */
const BUDGET_CHARS = 8_000;

export interface MemoryContext {
  memories: Array<{ key: string; content: string; truncated: boolean }>;
  /** The block to append to the system prompt; empty when there is nothing to add. */
  text: string;
}

export async function memoryContext(ctx: ExtensionContext, keyring: Keyring, agent: AgentRef, ask: { query?: string; limit?: number }): Promise<MemoryContext> {
  const limit = ask.limit ?? (await contextMemoriesOf(ctx, agent.tenantId, agent.agentId));
  if (limit === 0) return { memories: [], text: '' };
  const shelf = await memoryShelf(ctx, keyring);
  const owner = { tenantId: agent.tenantId, ownerId: agent.agentId };
  const matched = ask.query ? (await shelf.find(owner, { query: ask.query, limit, offset: 0 })).records : [];
  const chosen = new Map(matched.map((r) => [r.id, r]));
  if (chosen.size < limit) {
    for (const record of (await shelf.find(owner, { order: 'used', limit, offset: 0 })).records) {
      if (chosen.size === limit) break;
      if (!chosen.has(record.id)) chosen.set(record.id, record);
    }
  }
  const memories: MemoryContext['memories'] = [];
  let used = 0;
  for (const record of chosen.values()) {
    const truncated = record.content.length > MEMORY_CHARS;
    const content = truncated ? `${record.content.slice(0, MEMORY_CHARS)}…` : record.content;
    used += record.name.length + content.length + 4;
    if (used > BUDGET_CHARS) break;
    memories.push({ key: record.name, content, truncated });
  }
  if (memories.length === 0) return { memories, text: '' };
  const lines = memories.map((m) => `- ${m.key}: ${m.content.replace(/\s*\n\s*/g, ' ')}`);
  const text = ['## Your memories', 'Notes you saved in earlier sessions (recall any of them in full with svc_recall_memory):', ...lines].join('\n');
  return { memories, text };
}
