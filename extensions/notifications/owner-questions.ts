// svc_ask_owner and its answers: a question is stored, dispatched to every channel, announced to the
// tenant's WebSocket clients, and waited on until the first answer (from a chat bridge, the dashboard or
// REST) or its expiry. Closing a question tells every channel that showed it (question_closed).
import type { ExtensionContext } from '../../sdk/extension.js';
import { conflict, notFound, validationError } from '../../protocol/errors.js';
import { KeyedWaiters } from '../../sdk/waiters.js';
import type { ChannelStore } from './channels.js';
import type { Delivery, DeliveryStore } from './deliveries.js';
import { channelsFor, type Caller } from './notify.js';
import type { Outbox } from './outbox.js';
import type { Question, QuestionStore } from './questions.js';

export const WS_TOPIC = 'owner_questions';
/** The kernel gives a tool call at most 600 s (timeout_ms); a wait ends a little before that. */
export const MAX_WAIT_MS = 595_000;
/** How often a waiter looks at the stored row (an answer received by this process wakes it at once). */
const POLL_MS = 1_000;

export interface Outcome {
  question: Question;
  answered: boolean;
}

/**
 * How long a question asked at `receivedAt` stays open: what the agent asked for, but never past the end
 * of its wait, so a question is never answerable (and its answer "recorded") after the agent stopped
 * waiting for it.
 */
export function questionLifetimeMs(timeoutMs: number, receivedAt: number, now = Date.now()): number {
  return Math.max(1, Math.min(timeoutMs, receivedAt + MAX_WAIT_MS - now));
}

export class OwnerQuestions {
  private timer: NodeJS.Timeout | undefined;
  /** Waiters in this process, woken at once by an answer received here (others find it by polling). */
  private readonly waiters = new KeyedWaiters();
  /** How many tool calls in this process wait on each question (shown to the owner). */
  private readonly waitingCalls = new Map<string, number>();

  constructor(private readonly ctx: ExtensionContext, private readonly store: QuestionStore, private readonly channels: ChannelStore, private readonly deliveries: DeliveryStore, private readonly outbox: Outbox) {
    outbox.otherWork = () => store.hasPending();
    // A dispatch that went out after its question closed is closed at once.
    outbox.onDelivered = async (d) => {
      if (d.kind !== 'question' || !d.questionId) return;
      const q = await store.get(d.tenantId, d.questionId);
      if (q && q.status !== 'pending') await this.closeDispatches(q, [d]);
    };
  }

  start(): void {
    this.timer = setInterval(() => void this.sweep(), 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** A new question (or, for the same session asking the same thing again, the open one). */
  async ask(caller: Caller, input: { question: string; options: string[]; timeoutMs: number }): Promise<Question> {
    if (caller.sessionId) {
      const open = await this.store.reusable(caller.tenantId, caller.sessionId, input.question, new Date());
      if (open) return open;
    }
    const question = await this.store.create({ tenantId: caller.tenantId, agentId: caller.agentId, sessionId: caller.sessionId, ...input });
    const targets = await channelsFor(this.channels, caller);
    const queued = await this.deliveries.add(targets.map((c) => ({
      tenantId: caller.tenantId, questionId: question.id, channelId: c.id, channelType: c.type, kind: 'question' as const,
      payload: { text: question.question, priority: 'high', question: { id: question.id, options: question.options } },
    })));
    this.ctx.host.emit(WS_TOPIC, { type: 'owner_question', question }, caller.tenantId);
    await this.outbox.kick(queued);
    return question;
  }

  /** Waits for the answer or the expiry; an expired question is closed on every channel. */
  async wait(question: Question, startedAt = Date.now()): Promise<Outcome> {
    this.waitingCalls.set(question.id, this.callsWaiting(question.id) + 1);
    try {
      return await this.waitForOutcome(question, startedAt);
    } finally {
      const left = this.callsWaiting(question.id) - 1;
      if (left > 0) this.waitingCalls.set(question.id, left);
      else this.waitingCalls.delete(question.id);
    }
  }

  /** The calls waiting on a question now: 0 once the call that asked it ended (say, by a restart). */
  callsWaiting(id: string): number {
    return this.waitingCalls.get(id) ?? 0;
  }

  private async waitForOutcome(question: Question, startedAt: number): Promise<Outcome> {
    const deadline = Math.min(Date.parse(question.expiresAt), startedAt + MAX_WAIT_MS);
    for (;;) {
      const now = await this.store.get(question.tenantId, question.id);
      if (!now) throw notFound(`owner question ${question.id}`);
      if (now.status !== 'pending') return { question: now, answered: now.status === 'answered' };
      if (Date.now() >= deadline) {
        await this.expire(now);
        const final = (await this.store.get(question.tenantId, question.id)) ?? now;
        return { question: final, answered: final.status === 'answered' };
      }
      await this.waiters.wait(question.id, Math.min(POLL_MS, Math.max(deadline - Date.now(), 1)));
    }
  }

  async answer(tenantId: string, id: string, raw: string, via: string, responder: string | null): Promise<Question> {
    const question = await this.store.get(tenantId, id);
    if (!question) throw notFound(`owner question ${id}`);
    if (question.status !== 'pending') throw conflict(`owner question ${id} is already ${question.status}`);
    const answer = canonical(question, raw);
    if (!(await this.store.answer(tenantId, id, answer, via, responder, new Date()))) {
      const now = await this.store.get(tenantId, id);
      throw conflict(`owner question ${id} is already ${now?.status === 'pending' ? 'past its timeout' : now?.status}`);
    }
    const answered = (await this.store.get(tenantId, id))!;
    this.ctx.host.emit(WS_TOPIC, { type: 'owner_question_answered', question: answered }, tenantId);
    this.waiters.wake(id);
    await this.closeDispatches(answered, await this.deliveries.ofQuestion(tenantId, id));
    return answered;
  }

  private async expire(question: Question): Promise<void> {
    if (!(await this.store.expire(question.id, new Date()))) return;
    const expired = (await this.store.get(question.tenantId, question.id))!;
    this.ctx.host.emit(WS_TOPIC, { type: 'owner_question_expired', question: expired }, question.tenantId);
    this.waiters.wake(question.id);
    await this.closeDispatches(expired, await this.deliveries.ofQuestion(question.tenantId, question.id));
  }

  /**
   * Unsent dispatches are cancelled; each one that was shown gets one question_closed naming the outcome.
   * Both the answer and a dispatch delivered after it come here: the conditional markClosing lets only
   * the first of them queue the close.
   */
  private async closeDispatches(question: Question, dispatches: Delivery[]): Promise<void> {
    await this.deliveries.cancelPending(question.id);
    // Only a message the channel identified (its externalId) can be closed.
    const candidates = dispatches.filter((d) => d.kind === 'question' && d.status === 'delivered' && d.externalId);
    const shown: Delivery[] = [];
    for (const d of candidates) if (await this.deliveries.markClosing(d.id)) shown.push(d);
    const text = question.status === 'answered'
      ? `Answered: "${clip(question.answer ?? '', 1_000)}" (via ${question.answeredVia}${question.responder ? `, by ${question.responder}` : ''})`
      : 'Closed without an answer: the question timed out';
    const queued = await this.deliveries.add(shown.map((d) => ({
      tenantId: question.tenantId, questionId: question.id, channelId: d.channelId, channelType: d.channelType, kind: 'question_closed' as const,
      payload: { text, question: { id: question.id, options: question.options }, reference: d.externalId! },
    })));
    await this.outbox.kick(queued);
  }

  /** Expires overdue questions nobody waits on (their agent's call ended, or the server restarted). */
  private async sweep(): Promise<void> {
    try {
      const overdue = await this.store.overdue(new Date());
      if (overdue.length === 0 || !(await this.ctx.host.leader('questions'))) return;
      for (const q of overdue) await this.expire(q);
    } catch (err) {
      this.ctx.host.log('warn', `notifications: question sweep failed: ${(err as Error).message}`);
    }
  }

}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** With options, the answer must be one of them (any case; an option's number, 1-based, also works). */
function canonical(question: Question, raw: string): string {
  const answer = raw.trim();
  if (answer === '') throw validationError('answer must not be empty');
  if (question.options.length === 0) return answer;
  const match = question.options.find((o) => o.toLowerCase() === answer.toLowerCase()) ?? (/^\d+$/.test(answer) ? question.options[Number(answer) - 1] : undefined);
  if (match === undefined) throw validationError(`answer must be one of ${question.options.map((o) => JSON.stringify(o)).join(', ')}`);
  return match;
}
