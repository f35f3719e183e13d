// Members seen from the outside: agents checked through the agents routes (as the caller, so another
// tenant's agent is unknown), and their credits checked through the credits routes before a stage.
import { RoostError, validationError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../_shared/host-client.js';

/** The name of each agent, in order; 400 naming the first id the caller cannot see. */
export async function resolveAgents(host: HostClient, as: CallAs, agentIds: string[], field: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(agentIds.map(async (id) => {
    const reply = await host.call<{ name?: unknown; code?: unknown; error?: unknown }>('GET', `/api/agents/${encodeURIComponent(id)}`, undefined, as);
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

/**
 * The members who cannot pay for a turn now, each with the reason credits gave. Sessions reserve and
 * commit credits for every turn themselves; this probe (reserve one turn's amount, release it at once,
 * as a session does before its first turn) keeps a stage from starting members that would only pause
 * for lack of credits. Without a credits extension everyone can pay; when credits cannot answer, the
 * stage goes on and the sessions' own reservations decide.
 */
export async function unpaid(host: HostClient, tenantId: string, launchId: string, agentIds: string[], warn: (message: string) => Promise<unknown>): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  await Promise.all(agentIds.map(async (agentId) => {
    const as = { tenantId };
    type Reply = { status: number; body: { reservationId?: unknown; code?: unknown; error?: unknown } | null };
    const reply: Reply = await host.call<Reply['body']>('POST', '/api/credits/reservations', { agentId, sessionId: `council-launch-${launchId}` }, as)
      .catch((err: Error) => ({ status: 503, body: { error: err.message, code: 'EXTENSION_UNAVAILABLE' } }));
    const body = reply.body;
    if ((reply.status === 200 || reply.status === 201) && typeof body?.reservationId === 'string') {
      // Not awaited: the release need not hold up the question (it reaches credits before the turn's own reservation).
      void host.call('POST', `/api/credits/reservations/${encodeURIComponent(body.reservationId)}/release`, {}, as).catch(() => undefined);
      return;
    }
    if (reply.status === 404 && body?.code === 'ROUTE_NOT_FOUND') return;
    if (reply.status === 409 && typeof body?.code === 'string') {
      refused.set(agentId, `${body.code}: ${String(body.error ?? 'credits refused the turn')}`);
      return;
    }
    await warn(`credits could not check agent ${agentId} (status ${reply.status}); its session's own reservations decide`);
  }));
  return refused;
}

/** Stops a member's session that is answering for a launch that no longer needs it (best effort). */
export async function stopSession(host: HostClient, tenantId: string, sessionId: string): Promise<void> {
  await host.call('POST', `/api/sessions/${encodeURIComponent(sessionId)}/stop`, {}, { tenantId }).catch(() => undefined);
}
