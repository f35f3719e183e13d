// MCP tools for agents: memories and observations of the calling agent (from its MCP token), and its
// tenant's shared library. Arguments arrive checked against schemas/tool-*.json by the kernel.
import { RoostError } from '../../protocol/errors.js';
import type { ToolMessage } from '../../protocol/messages.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { deleteEntry, listEntries, readEntry, writeEntry } from './library.js';
import { deleteMemory, recallMemory, saveMemory, type AgentRef } from './memories.js';
import type { Keyring } from './keyring.js';
import { Observations, type ObservationStatus } from './observations.js';

const reply = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const int = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/** Memories and observations are an agent's own: a caller without an agent (an API key) has none. */
function agentOf(caller: ToolMessage['caller'], tool: string): AgentRef {
  if (!caller.agentId) throw new RoostError('FORBIDDEN', `${tool} works for an agent: call it with the agent's MCP token (its session's), not an API key`);
  return { tenantId: caller.tenantId, agentId: caller.agentId };
}

export const tools: Record<string, ToolHandler<Keyring>> = {
  async svc_save_memory(args, caller, ctx, keyring) {
    const { memory, created } = await saveMemory(ctx, keyring, agentOf(caller, 'svc_save_memory'), String(args.key), String(args.content));
    return reply({ saved: memory.key, created, updatedAt: memory.updatedAt });
  },

  async svc_recall_memory(args, caller, ctx, keyring) {
    return reply(await recallMemory(ctx, keyring, agentOf(caller, 'svc_recall_memory'), { key: str(args.key), query: str(args.query), limit: args.limit as number | undefined }));
  },

  async svc_delete_memory(args, caller, ctx, keyring) {
    await deleteMemory(ctx, keyring, agentOf(caller, 'svc_delete_memory'), String(args.key));
    return reply({ deleted: String(args.key) });
  },

  async svc_record_observation(args, caller, ctx, keyring) {
    const observations = await Observations.of(ctx, keyring, agentOf(caller, 'svc_record_observation'));
    return reply(await observations.record({ content: String(args.content), source: str(args.source), tags: args.tags as string[] | undefined }));
  },

  async svc_list_observations(args, caller, ctx, keyring) {
    const observations = await Observations.of(ctx, keyring, agentOf(caller, 'svc_list_observations'));
    return reply(await observations.list((str(args.status) ?? 'active') as ObservationStatus | 'all', int(args.limit, 50), int(args.offset, 0)));
  },

  async svc_boost_observation(args, caller, ctx, keyring) {
    const observations = await Observations.of(ctx, keyring, agentOf(caller, 'svc_boost_observation'));
    return reply({ observation: await observations.boost(String(args.id), int(args.amount, 1)) });
  },

  async svc_dismiss_observation(args, caller, ctx, keyring) {
    const observations = await Observations.of(ctx, keyring, agentOf(caller, 'svc_dismiss_observation'));
    return reply({ observation: await observations.dismiss(String(args.id)) });
  },

  async svc_observation_stats(_args, caller, ctx, keyring) {
    return reply(await (await Observations.of(ctx, keyring, agentOf(caller, 'svc_observation_stats'))).stats());
  },

  async svc_library_write(args, caller, ctx, keyring) {
    return reply(await writeEntry(ctx, keyring, caller.tenantId, caller.agentId, { name: String(args.name), content: String(args.content), tags: args.tags as string[] | undefined }));
  },

  async svc_library_read(args, caller, ctx, keyring) {
    return reply(await readEntry(ctx, keyring, caller.tenantId, String(args.name)));
  },

  async svc_library_list(args, caller, ctx, keyring) {
    return reply(await listEntries(ctx, keyring, caller.tenantId, { tag: str(args.tag), query: str(args.query), limit: int(args.limit, 50), offset: int(args.offset, 0) }));
  },

  async svc_library_delete(args, caller, ctx, keyring) {
    await deleteEntry(ctx, keyring, caller.tenantId, String(args.name));
    ctx.host.audit('library.deleted', `tenant:${caller.tenantId}`, { agentId: caller.agentId });
    return reply({ deleted: String(args.name) });
  },
};
