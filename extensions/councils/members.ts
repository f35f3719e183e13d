// Members seen from the outside: agents checked through the agents routes (as the caller, so another
// tenant's agent is unknown), and their credits checked through the credits routes before a stage.
import { RoostError, validationError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { CreditsClient } from '../credits/contract.js';
import { agentsClient } from '../agents/contract.js';
import { sessionsClient } from '../sessions/contract.js';

/** The name of each agent, in order; 400 naming the first id the caller cannot see. */
export async function resolveAgents(host: HostClient, as: CallAs, agentIds: string[], field: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(agentIds.map(async (id) => {
    const reply = await agentsClient(host, as).get(id);
    if (reply.status === 200) {
      names.set(id, typeof reply.body?.name === 'string' ? reply.body.name : id);
      return;
    }
    if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'councils need the agents extension, which is not loaded');
    if (reply.status === 404) throw validationError(`${field}: agent ${id} not found`);
    throw new RoostError('EXTENSION_UNAVAILABLE', `checking agent ${id} failed with status ${reply.status}: ${String(reply.body?.error ?? '')}`, { status: 503 });
  }));
  return names;
}

/** A stage's turns paid for ahead: each member's reservation, and the members who cannot pay (with the reason credits gave). */
export interface StageCredits {
  reserved: Map<string, string>;
  refused: Map<string, string>;
}

/**
 * Reserves one turn for each member before a stage starts. The member's session takes the reservation
 * over (it answers the stage's question on it, and commits the real cost), so members that could not
 * pay are never asked, and none runs out of credits half-way through the stage. A member who needs
 * more than one turn (tool uses) pays for the others as sessions always do. Without a credits extension
 * everyone can pay; when credits cannot answer, the stage goes on and the sessions' own reservations decide.
 */
export async function reserveTurns(host: HostClient, tenantId: string, launchId: string, agentIds: string[], warn: (message: string) => Promise<unknown>): Promise<StageCredits> {
  const credits: StageCredits = { reserved: new Map(), refused: new Map() };
  if (agentIds.length === 0) return credits;
  type Item = { reservationId?: unknown; code?: unknown; error?: unknown; status?: unknown };
  type Reply = { status: number; body: { reservations?: Item[]; code?: unknown; error?: unknown } | null };
  const asked = agentIds.map((agentId) => ({ agentId, sessionId: `council-launch-${launchId}` }));
  const reply: Reply = await new CreditsClient(host).reserveBatch(asked, { tenantId })
    .catch((err: Error) => ({ status: 503, body: { error: err.message, code: 'EXTENSION_UNAVAILABLE' } }));
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') return credits;
  const items = reply.status === 200 && Array.isArray(reply.body?.reservations) ? reply.body.reservations : null;
  for (const [i, agentId] of agentIds.entries()) {
    const item = items?.[i];
    if (typeof item?.reservationId === 'string') credits.reserved.set(agentId, item.reservationId);
    else if (item?.status === 409 && typeof item.code === 'string') credits.refused.set(agentId, `${item.code}: ${String(item.error ?? 'credits refused the turn')}`);
    else await warn(`credits could not reserve a turn for agent ${agentId} (${item ? String(item.error ?? item.code) : `status ${reply.status}`}); its session's own reservations decide`);
  }
  return credits;
}

/** Gives back reservations no session took over (a member that failed, or a question sent before a restart). Best effort: not awaited by the stage. */
export function releaseTurns(host: HostClient, tenantId: string, reservationIds: Iterable<string>): void {
  const credits = new CreditsClient(host);
  for (const id of reservationIds) void credits.release(id, { tenantId }).catch(() => undefined);
}

/** Stops a member's session that is answering for a launch that no longer needs it (best effort). */
export async function stopSession(host: HostClient, tenantId: string, sessionId: string): Promise<void> {
  await sessionsClient(host, { tenantId }).stop(sessionId).catch(() => undefined);
}
