// Starting a launch (from the REST route and from svc_launch_council alike), and what a launch looks
// like from outside: its members without the bookkeeping, and, in detail, the votes with their reasons.
import { notFound } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { CouncilStore } from './council-store.js';
import { EventLog } from './event-log.js';
import { LaunchStore, type Launch } from './launch-store.js';
import { resolveAgents } from './members.js';
import { breakdownOf, type Vote } from './prompts.js';
import type { LaunchRunner } from './runner.js';

export async function launchCouncil(ctx: ExtensionContext, runner: LaunchRunner, as: CallAs, tenantId: string, councilId: string, input: { prompt: string; auto?: boolean; idempotencyKey?: string }): Promise<Launch> {
  const council = await new CouncilStore(ctx.db, ctx.sql).get(tenantId, councilId);
  if (!council) throw notFound(`council ${councilId}`);
  // The members are checked again as the caller: an agent deleted since the council was made stops the launch here.
  const names = await resolveAgents(ctx.host, as, council.members, 'members');
  if (council.synthesizerId && !council.members.includes(council.synthesizerId)) await resolveAgents(ctx.host, as, [council.synthesizerId], 'synthesizerId');
  const { name, rounds, questionTemplate, quorum, memberTimeoutSeconds, chairId, synthesizerId } = council;
  const launch = await new LaunchStore(ctx.db, ctx.sql).create(tenantId, {
    councilId: council.id,
    prompt: input.prompt,
    auto: input.auto ?? true,
    config: { name, rounds, questionTemplate, quorum, memberTimeoutSeconds, chairId, synthesizerId },
    members: council.members.map((agentId) => ({ agentId, name: names.get(agentId) ?? agentId })),
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
  });
  await runner.begin(launch);
  return launch;
}

export function launchView(launch: Launch) {
  const { tenantId: _tenant, synthesisAfter: _after, members, ...rest } = launch;
  return { ...rest, members: members.map(({ pendingStep: _step, pendingAfter: _pending, ...m }) => m) };
}

/** The launch with every vote and its reason, and the breakdown. */
export async function launchDetail(ctx: ExtensionContext, launch: Launch) {
  const reviews = await new EventLog(ctx).messages(launch.id, 'review');
  const votes = reviews.map((e) => ({ agentId: e.agentId, vote: (e.vote ?? null) as Vote | null, reason: e.reason, seq: e.seq }));
  return { ...launchView(launch), votes, voteBreakdown: breakdownOf(votes) };
}
