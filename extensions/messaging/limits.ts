// The limits against message loops. A session's sends are reserved before delivery (insert, then look
// at the others), so two sends racing from one session cannot both slip under a limit; a send whose
// delivery fails gives its reservation back.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { MessagingSettings } from './settings.js';

/** Every loop limit answers 429 with this code and `details.limit` naming which one. */
export const limitError = (limit: 'messages' | 'targets' | 'spacing' | 'depth', message: string, details: Record<string, unknown> = {}) =>
  new RoostError('MESSAGE_LIMIT', message, { status: 429, details: { limit, ...details } });

interface Send {
  to_agent_id: string;
  sent_at: number | string;
}

export class SendLedger {
  constructor(private readonly db: Knex) {}

  async reserve(tenantId: string, sessionId: string, toAgentId: string, limits: MessagingSettings, now: number): Promise<string> {
    const id = randomUUID();
    await this.db('message_sends').insert({ id, tenant_id: tenantId, session_id: sessionId, to_agent_id: toAgentId, sent_at: now });
    const earlier = await this.db('message_sends').where({ tenant_id: tenantId, session_id: sessionId }).whereNot({ id }).select<Send[]>('to_agent_id', 'sent_at');
    const refusal = check(sessionId, toAgentId, earlier, limits, now);
    if (refusal) {
      await this.release(id);
      throw refusal;
    }
    return id;
  }

  async release(id: string): Promise<void> {
    await this.db('message_sends').where({ id }).delete();
  }
}

function check(sessionId: string, toAgentId: string, earlier: Send[], limits: MessagingSettings, now: number): RoostError | undefined {
  if (earlier.length >= limits.maxMessagesPerSession) {
    return limitError('messages', `session ${sessionId} has sent ${earlier.length} messages, the most one session may send (${limits.maxMessagesPerSession})`, { max: limits.maxMessagesPerSession });
  }
  const targets = new Set(earlier.map((s) => s.to_agent_id));
  if (!targets.has(toAgentId) && targets.size >= limits.maxTargetsPerSession) {
    return limitError('targets', `session ${sessionId} already messages ${targets.size} agents (${[...targets].join(', ')}); one session may message at most ${limits.maxTargetsPerSession}`, { max: limits.maxTargetsPerSession });
  }
  const last = Math.max(0, ...earlier.map((s) => Number(s.sent_at)));
  const waitMs = last + limits.minSpacingMs - now;
  if (waitMs > 0) {
    return limitError('spacing', `messages from one session go at least ${limits.minSpacingMs} ms apart; session ${sessionId} may send again in ${waitMs} ms`, { retryAfterMs: waitMs });
  }
  return undefined;
}
