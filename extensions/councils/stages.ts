// The work of each stage. A stage asks the members that are still in (in parallel), records each answer
// as a discussion message, and records a member that fails or times out instead of stopping the council;
// the council goes on while the quorum holds. What was already answered is never asked again, and a
// question sent before a restart is awaited again rather than sent twice (the pending step).
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { askAgent, waitForReply } from '../sessions/contract-reply.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { EventLog, type MessageKind } from './event-log.js';
import { LaunchStore, type Launch, type Member } from './launch-store.js';
import { releaseTurns, reserveTurns, stopSession, type StageCredits } from './members.js';
import { answersOf, breakdownOf, describeBreakdown, discussionPrompt, parseVote, respondingPrompt, reviewPrompt, synthesisPrompt, type Answer, type Vote } from './prompts.js';

/** Failures of the way to a member rather than of the member: tried again while its time lasts. */
const TRANSIENT = new Set(['EXTENSION_UNAVAILABLE', 'EXTENSION_TIMEOUT', 'PROTOCOL_ERROR']);
const RETRY_MS = 1_000;

/** Who is asked: the session it continues (or the name of the one to start), and where a sent question is kept. */
interface Asking {
  agentId: string;
  sessionId: string | null;
  sessionName: string;
  /** The turn reserved for the answer; cleared once the question went out with it (the session settles it then). */
  reservationId?: string | undefined;
  pending: () => Promise<{ sessionId: string; after: number } | null>;
  onSent: (sent: { sessionId: string; after: number }) => Promise<void>;
}

type Synthesizer = Pick<Member, 'agentId' | 'name' | 'sessionId'>;

export class QuorumLost extends RoostError {
  constructor(launch: Launch, active: number) {
    super('CONFLICT', `only ${active} of ${launch.members.length} members are still answering; the council's quorum is ${launch.config.quorum}`);
  }
}

export class StageWork {
  private readonly store: LaunchStore;
  private readonly events: EventLog;

  constructor(private readonly ctx: ExtensionContext, private readonly signal: AbortSignal) {
    this.store = new LaunchStore(ctx.db, ctx.sql);
    this.events = new EventLog(ctx);
  }

  async responding(launch: Launch): Promise<void> {
    const { members, credits } = await this.prepare(launch, 'response', 0);
    await this.askAll(launch, members, credits, 'responding:0', async (member) => ({
      prompt: respondingPrompt(launch.config, launch.prompt, launch.members.length),
      record: (content) => this.message(launch, { stage: 'responding', kind: 'response', agentId: member.agentId, round: 0, content }),
    }));
    await this.quorum(launch);
  }

  async discussing(launch: Launch): Promise<void> {
    if (launch.config.rounds === 0) await this.log(launch, 'info', 'the council has no discussion rounds');
    for (let round = Math.max(launch.round, 1); round <= launch.config.rounds; round++) {
      if (round !== launch.round) await this.store.patch(launch.id, { round });
      const current = await this.reload(launch);
      const { members, credits } = await this.prepare(current, 'discussion', round);
      const previous = answersOf(current.members, await this.events.messages(launch.id, round === 1 ? 'response' : 'discussion', round - 1));
      await this.log(current, 'info', `discussion round ${round} of ${launch.config.rounds}`);
      await this.askAll(current, members, credits, `discussing:${round}`, async (member) => ({
        prompt: discussionPrompt(launch.config, round, previous.filter((a) => a.agentId !== member.agentId)),
        record: (content) => this.message(current, { stage: 'discussing', kind: 'discussion', agentId: member.agentId, round, content }),
      }));
      await this.quorum(current);
    }
  }

  async reviewing(launch: Launch): Promise<void> {
    const { members, credits } = await this.prepare(launch, 'review', 0);
    const finals = await this.finals(launch);
    await this.askAll(launch, members, credits, 'reviewing:0', async (member) => ({
      prompt: reviewPrompt(launch.config, launch.prompt, finals),
      record: async (content) => {
        const { vote, reason } = parseVote(content);
        if (vote === null) await this.log(launch, 'warn', `${member.name} gave no valid vote: ${reason}`, member.agentId);
        await this.message(launch, { stage: 'reviewing', kind: 'review', agentId: member.agentId, round: 0, content, vote, reason });
      },
    }));
    await this.quorum(launch);
  }

  /**
   * The final answer with the vote breakdown, written by the first who can of: the designated
   * synthesizer, the chair, the other members still in. One who cannot pay, fails or times out is
   * recorded and the next one writes it.
   */
  async synthesizing(launch: Launch): Promise<{ result: string; synthesizerId: string; sessionId: string }> {
    const current = await this.reload(launch);
    const votes = await this.votes(current);
    const breakdown = describeBreakdown(breakdownOf(votes));
    const prompt = synthesisPrompt(launch.config, launch.prompt, await this.finals(current), votes, breakdown);
    const candidates = this.synthesizers(current);
    if (candidates.length === 0) throw new QuorumLost(launch, 0);
    for (const [i, synthesizer] of candidates.entries()) {
      try {
        const reply = await this.synthesize(current, synthesizer, prompt, breakdown);
        await this.message(current, { stage: 'synthesizing', kind: 'synthesis', agentId: synthesizer.agentId, round: 0, content: reply.text });
        return { result: `${reply.text}\n\nVotes: ${breakdown}.`, synthesizerId: synthesizer.agentId, sessionId: reply.sessionId };
      } catch (err) {
        const next = candidates[i + 1];
        if (this.signal.aborted || !next) throw err;
        const why = toRoostError(err).message;
        const member = current.members.find((m) => m.agentId === synthesizer.agentId);
        if (member) await this.fail(current, member, `could not write the final answer: ${why}`);
        else await this.log(current, 'warn', `${synthesizer.name} could not write the final answer: ${why}`, synthesizer.agentId);
        await this.log(current, 'info', `${next.name} writes the final answer instead`, next.agentId);
      }
    }
    throw new QuorumLost(launch, 0);
  }

  private async synthesize(launch: Launch, synthesizer: Synthesizer, prompt: string, breakdown: string): Promise<{ text: string; sessionId: string }> {
    const credits = await reserveTurns(this.ctx.host, launch.tenantId, launch.id, [synthesizer.agentId], (m) => this.log(launch, 'warn', m));
    const refused = credits.refused.get(synthesizer.agentId);
    if (refused) throw new RoostError('CONFLICT', `${synthesizer.name} cannot pay for a turn: ${refused}`);
    await this.log(launch, 'info', `${synthesizer.name} writes the final answer (votes: ${breakdown})`, synthesizer.agentId);
    const asking: Asking = {
      ...synthesizer,
      sessionName: `council ${launch.config.name}: synthesis`,
      reservationId: credits.reserved.get(synthesizer.agentId),
      pending: async () => {
        const now = await this.reload(launch);
        return now.synthesizerId === synthesizer.agentId && now.synthesisSessionId && now.synthesisAfter !== null ? { sessionId: now.synthesisSessionId, after: now.synthesisAfter } : null;
      },
      onSent: ({ sessionId, after }) => this.store.patch(launch.id, { synthesizer_id: synthesizer.agentId, synthesis_session_id: sessionId, synthesis_after: after }),
    };
    try {
      return await this.answer(launch, prompt, asking);
    } finally {
      if (asking.reservationId) releaseTurns(this.ctx.host, launch.tenantId, [asking.reservationId]);
    }
  }

  /** Who may write the final answer, in order: the designated synthesizer, the chair while it is in, the other members still in. */
  private synthesizers(launch: Launch): Synthesizer[] {
    const active = launch.members.filter((m) => m.status === 'active');
    const { synthesizerId, chairId } = launch.config;
    const designated = synthesizerId && !launch.members.some((m) => m.agentId === synthesizerId) ? [{ agentId: synthesizerId, name: synthesizerId, sessionId: null }] : [];
    const first = (id: string | null) => active.filter((m) => m.agentId === id);
    const ordered: Synthesizer[] = [...designated, ...first(synthesizerId), ...first(chairId), ...active];
    return ordered.filter((s, i) => ordered.findIndex((o) => o.agentId === s.agentId) === i);
  }

  /** Each active member's latest answer (from the responding or discussing stage). */
  private async finals(launch: Launch): Promise<Answer[]> {
    const current = await this.reload(launch);
    const all = [...(await this.events.messages(launch.id, 'response')), ...(await this.events.messages(launch.id, 'discussion'))].sort((a, b) => a.seq - b.seq);
    const latest = new Map<string, (typeof all)[number]>();
    for (const e of all) latest.set(String(e.agentId), e);
    return answersOf(current.members.filter((m) => m.status === 'active'), [...latest.values()].sort((a, b) => a.seq - b.seq));
  }

  async votes(launch: Launch): Promise<Array<{ agentId: string; name: string; vote: Vote | null; reason: string }>> {
    return (await this.events.messages(launch.id, 'review')).map((e) => ({
      agentId: String(e.agentId),
      name: launch.members.find((m) => m.agentId === e.agentId)?.name ?? String(e.agentId),
      vote: (e.vote ?? null) as Vote | null,
      reason: String(e.reason ?? ''),
    }));
  }

  /**
   * Who the stage still has to ask (the active members that have not answered it), each with a turn
   * reserved before anyone is asked; members who cannot pay are recorded as out. Throws when the quorum is lost.
   */
  private async prepare(launch: Launch, kind: MessageKind, round: number): Promise<{ members: Member[]; credits: StageCredits }> {
    const answered = await this.answeredBy(launch.id, kind, round);
    const toAsk = (await this.quorum(launch)).filter((m) => m.status === 'active' && !answered.has(m.agentId));
    const credits = await reserveTurns(this.ctx.host, launch.tenantId, launch.id, toAsk.map((m) => m.agentId), (m) => this.log(launch, 'warn', m));
    for (const [agentId, reason] of credits.refused) await this.fail(launch, toAsk.find((m) => m.agentId === agentId)!, `cannot pay for a turn: ${reason}`);
    if (credits.refused.size > 0) await this.quorum(launch);
    return { members: toAsk.filter((m) => !credits.refused.has(m.agentId)), credits };
  }

  private async quorum(launch: Launch): Promise<Member[]> {
    const { members } = await this.reload(launch);
    const active = members.filter((m) => m.status === 'active').length;
    if (active < launch.config.quorum) throw new QuorumLost(launch, active);
    return members;
  }

  private async askAll(launch: Launch, members: Member[], credits: StageCredits, step: string, question: (m: Member) => Promise<{ prompt: string; record: (content: string) => Promise<unknown> }>): Promise<void> {
    const askings: Asking[] = [];
    await Promise.all(members.map(async (member) => {
      // The first try goes by the member as prepare() read it just now; a retry reads it again.
      let known: Member | undefined = member;
      const asking: Asking = {
        ...member,
        sessionName: `council ${launch.config.name}: ${member.name}`,
        reservationId: credits.reserved.get(member.agentId),
        pending: async () => {
          const now = known ?? (await this.reload(launch)).members.find((m) => m.agentId === member.agentId);
          known = undefined;
          return now?.pendingStep === step && now.sessionId && now.pendingAfter !== null ? { sessionId: now.sessionId, after: now.pendingAfter } : null;
        },
        onSent: ({ sessionId, after }) => this.store.updateMember(launch.id, member.agentId, { session_id: sessionId, pending_step: step, pending_after: after }),
      };
      askings.push(asking);
      try {
        const { prompt, record } = await question(member);
        const { text } = await this.answer(launch, prompt, asking);
        if (this.signal.aborted) return;
        await this.store.updateMember(launch.id, member.agentId, { pending_step: null, pending_after: null });
        await record(text);
      } catch (err) {
        if (this.signal.aborted) return;
        const error = toRoostError(err);
        if (error.code === 'TIMEOUT') {
          const sessionId = (await this.reload(launch)).members.find((m) => m.agentId === member.agentId)?.sessionId;
          if (sessionId) await stopSession(this.ctx.host, launch.tenantId, sessionId);
        }
        await this.fail(launch, member, error.message);
      }
    }));
    releaseTurns(this.ctx.host, launch.tenantId, askings.flatMap((a) => (a.reservationId ? [a.reservationId] : [])));
    if (this.signal.aborted) throw new RoostError('CANCELLED', 'the launch stopped');
  }

  /**
   * The agent's answer to `prompt`, asked once: a question already sent (before a restart, or before the
   * sessions extension became unreachable for a moment, as it does while the server shuts down) is awaited
   * again, not sent twice.
   */
  private async answer(launch: Launch, prompt: string, asking: Asking): Promise<{ text: string; sessionId: string }> {
    const as = { tenantId: launch.tenantId };
    const deadline = Date.now() + launch.config.memberTimeoutSeconds * 1000;
    let first = true;
    for (;;) {
      const timeoutMs = Math.max(deadline - Date.now(), 1);
      const waits = { timeoutMs, signal: this.signal };
      // The reserved turn goes with the first try only: a try that failed may have handed it to a session already.
      const reservationId = first ? asking.reservationId : undefined;
      first = false;
      try {
        const pending = await asking.pending();
        return pending
          ? await waitForReply(this.ctx.host, as, pending.sessionId, pending.after, waits)
          : await askAgent(this.ctx.host, as, {
            agentId: asking.agentId, prompt, ...waits, ...(reservationId ? { reservationId } : {}),
            onSent: async (sent) => {
              if (reservationId) asking.reservationId = undefined; // the session settles it now
              await asking.onSent(sent);
            },
            ...(asking.sessionId ? { sessionId: asking.sessionId } : { session: { name: asking.sessionName } }),
          });
      } catch (err) {
        if (!TRANSIENT.has(toRoostError(err).code) || Date.now() + RETRY_MS > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        if (this.signal.aborted) throw err;
      }
    }
  }

  private async fail(launch: Launch, member: Member, why: string): Promise<void> {
    await this.store.updateMember(launch.id, member.agentId, { status: 'failed', error: why, pending_step: null, pending_after: null });
    await this.log(launch, 'warn', `${member.name} is out of the council: ${why}`, member.agentId);
  }

  private async answeredBy(launchId: string, kind: MessageKind, round: number): Promise<Set<string>> {
    return new Set((await this.events.messages(launchId, kind, round)).map((e) => String(e.agentId)));
  }

  private async reload(launch: Launch): Promise<Launch> {
    const current = await this.store.get(launch.tenantId, launch.id);
    if (!current) throw new RoostError('CANCELLED', `launch ${launch.id} is gone`);
    return current;
  }

  private message(launch: Launch, input: { stage: Launch['stage']; kind: MessageKind; agentId: string; round: number; content: string; vote?: Vote | null; reason?: string }) {
    return this.events.append(launch, { type: 'discussion_message', ...input });
  }

  log(launch: Launch, level: 'info' | 'warn' | 'error', message: string, agentId?: string) {
    return this.events.append(launch, { type: 'log', stage: launch.stage, level, message, ...(agentId ? { agentId } : {}) });
  }
}
