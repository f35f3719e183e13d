// MCP tools: memories on-chain (the calling agent's own) and PSK contacts by name.
import { RoostError } from '../../protocol/errors.js';
import type { ToolMessage } from '../../protocol/messages.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { promote, readOnchain, syncOnchain } from './onchain-memories.js';
import type { State } from './state.js';

const reply = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });

function agentOf(caller: ToolMessage['caller'], tool: string): string {
  if (!caller.agentId) throw new RoostError('FORBIDDEN', `${tool} works for an agent: call it with the agent's MCP token (its session's), not an API key`);
  return caller.agentId;
}

export const tools: Record<string, ToolHandler<State>> = {
  async svc_promote_memory(args, caller, _ctx, s) {
    return reply(await promote(s, caller.tenantId, agentOf(caller, 'svc_promote_memory'), String(args.key)));
  },

  async svc_read_onchain_memories(_args, caller, _ctx, s) {
    return reply({ memories: await readOnchain(s, caller.tenantId, agentOf(caller, 'svc_read_onchain_memories')) });
  },

  async svc_sync_onchain_memories(_args, caller, _ctx, s) {
    return reply(await syncOnchain(s, caller.tenantId, agentOf(caller, 'svc_sync_onchain_memories')));
  },

  async svc_lookup_contact(args, caller, _ctx, s) {
    const contacts = await s.contacts.byName(caller.tenantId, String(args.name));
    if (contacts.length === 0) return { content: [{ type: 'text', text: `no PSK contact named "${String(args.name)}"` }], isError: true };
    return reply({ contacts: contacts.map((c) => ({ id: c.id, name: c.name, address: c.address })) });
  },
};
