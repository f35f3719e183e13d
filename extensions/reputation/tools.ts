// MCP tools: an agent checks a reputation score of its tenant, publishes an attestation of one, and
// verifies an attestation from any server by that server's published key.
import { join } from 'node:path';
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ToolHandler, ExtensionContext } from '../../sdk/extension.js';
import { agentById } from '../agents/contract.js';
import { attest, issuerKeys, verify } from './attestations.js';
import { IdentityStore } from './identities.js';
import { currentScore } from './scores.js';

const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });
const agentFor = (ctx: ExtensionContext, caller: { tenantId: string; agentId: string | null }, agentId: string | undefined) => {
  const id = agentId ?? caller.agentId;
  if (!id) throw validationError('agent_id is required when the caller is not an agent');
  return agentById(ctx.host, { tenantId: caller.tenantId }, id);
};
const input = <T>(ctx: ExtensionContext, file: string, args: unknown) => validate<T>(join(ctx.init.plugin.dir, 'schemas', file), args, 'arguments');

export const tools: Record<string, ToolHandler> = {
  async svc_check_reputation(args, caller, ctx) {
    const { agent_id } = input<{ agent_id?: string }>(ctx, 'tool-check-reputation.json', args);
    const agent = await agentFor(ctx, caller, agent_id);
    const score = await currentScore(ctx, caller.tenantId, agent.id);
    const identity = await new IdentityStore(ctx.db).get(caller.tenantId, agent.id);
    return text({ agentId: agent.id, name: agent.name, score: score.score, eventCount: score.eventCount, tier: identity.tier, computedAt: score.computedAt });
  },

  async svc_publish_attestation(args, caller, ctx) {
    const { agent_id, ttl_hours } = input<{ agent_id?: string; ttl_hours?: number }>(ctx, 'tool-publish-attestation.json', args);
    const agent = await agentFor(ctx, caller, agent_id);
    return text(await attest(ctx, caller.tenantId, agent, ttl_hours ?? 168));
  },

  async svc_verify_agent_reputation(args, caller, ctx) {
    const { attestation, issuer_url } = input<{ attestation: unknown; issuer_url?: string }>(ctx, 'tool-verify-reputation.json', args);
    const verdict = await verify(attestation, issuer_url, issuerKeys(ctx, caller.tenantId));
    return verdict.valid ? text(verdict) : { ...text(verdict), isError: true };
  },
};
