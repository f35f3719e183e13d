// The limits against message loops, on every way an agent sends a message. Sends are counted per
// sender: the sending session when an agent sends from one (its whole life), else the agent named as
// the sender (within the last windowSeconds). A person or script sending is not counted: loops run
// between agents. A send is reserved before delivery (insert, then look at the others), so two sends
// racing from one sender cannot both slip under a limit; a send whose delivery fails gives its
// reservation back.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { MessagingSettings } from './settings.js';

/** Every loop limit answers 429 with this code and `details.limit` naming which one. */
export const limitError = (limit: 'messages' | 'targets' | 'spacing' | 'depth', message: string, details: Record<string, unknown> = {}) =>
  new RoostError('MESSAGE_LIMIT', message, { status: 429, details: { limit, ...details } });

/** Who a send is counted against, and how to name it in a refusal. */
export type Sender =
  | { kind: 'session'; sessionId: string }
  | { kind: 'agent'; agentId: string; name: string }
  | { kind: 'caller'; actor: string };

/** The senders the limits count: agents, from a session or named without one. */
type Counted = Exclude<Sender, { kind: 'caller' }>;

const scopeOf = (sender: Counted): string => (sender.kind === 'session' ? `session:${sender.sessionId}` : `agent:${sender.agentId}`);

interface Send {
  to_agent_id: string;
  sent_at: number | string;
}

export class SendLedger {
  constructor(private readonly db: Knex) {}

  async reserve(tenantId: string, sender: Counted, toAgentId: string, limits: MessagingSettings, now: number): Promise<string> {
    const id = randomUUID();
    const scope = scopeOf(sender);
    // A session is counted over its life; any other sender over the window (older sends are dropped).
    const since = sender.kind === 'session' ? 0 : now - limits.windowSeconds * 1000;
    if (sender.kind !== 'session') await this.db('message_ledger').where({ tenant_id: tenantId, scope }).where('sent_at', '<=', since).delete();
    await this.db('message_ledger').insert({ id, tenant_id: tenantId, scope, to_agent_id: toAgentId, sent_at: now });
    const earlier = await this.db('message_ledger').where({ tenant_id: tenantId, scope }).where('sent_at', '>', since).whereNot({ id }).select<Send[]>('to_agent_id', 'sent_at');
    const refusal = check(sender, toAgentId, earlier, limits, now);
    if (refusal) {
      await this.release(id);
      throw refusal;
    }
    return id;
  }

  async release(id: string): Promise<void> {
    await this.db('message_ledger').where({ id }).delete();
  }
}

function check(sender: Counted, toAgentId: string, earlier: Send[], limits: MessagingSettings, now: number): RoostError | undefined {
  const words = wordsFor(sender, limits);
  if (earlier.length >= limits.maxMessagesPerSession) {
    return limitError('messages', `${words.who} has sent ${earlier.length} messages${words.within}, the most ${words.one} may send${words.within === '' ? '' : ' in that time'} (${limits.maxMessagesPerSession})`, { max: limits.maxMessagesPerSession });
  }
  const targets = new Set(earlier.map((s) => s.to_agent_id));
  if (!targets.has(toAgentId) && targets.size >= limits.maxTargetsPerSession) {
    return limitError('targets', `${words.who} already messages ${targets.size} agents${words.within} (${[...targets].join(', ')}); ${words.one} may message at most ${limits.maxTargetsPerSession}`, { max: limits.maxTargetsPerSession });
  }
  const last = Math.max(0, ...earlier.map((s) => Number(s.sent_at)));
  const waitMs = last + limits.minSpacingMs - now;
  if (waitMs > 0) {
    return limitError('spacing', `messages from ${words.one} go at least ${limits.minSpacingMs} ms apart; ${words.who} may send again in ${waitMs} ms`, { retryAfterMs: waitMs });
  }
  return undefined;
}

function wordsFor(sender: Counted, limits: MessagingSettings): { who: string; one: string; within: string } {
  if (sender.kind === 'session') return { who: `session ${sender.sessionId}`, one: 'one session', within: '' };
  return { who: `agent ${sender.name} (sending without a session)`, one: 'one sender', within: ` in the last ${limits.windowSeconds} s` };
}
