// The turn loop of a running session. A turn is one model round trip plus its tool uses: reserve
// credits, ask the runner, commit the real usage. The loop goes on while the model asks for more
// (tool results to read) or user messages wait; every turnsPerContext turns the context is reset.
import { RoostError } from '../../protocol/errors.js';
import { isOutage } from '../../lib/providers/errors.js';
import { CREDIT_CODES } from './credits.js';
import type { RunnerProcess } from './runner-process.js';
import type { TurnReply } from './runner/protocol.js';
import type { SessionRuntime } from './runtime.js';
import type { PendingInput } from './store.js';

export async function pump(rt: SessionRuntime): Promise<void> {
  if (rt.busy) return;
  rt.busy = true;
  try {
    while (rt.row.status === 'running' && !rt.closing) {
      const input = nextInput(rt);
      if (input === undefined) break;
      if (!(await runTurn(rt, input))) break;
      if (rt.slot.contextTurns >= rt.row.turns_per_context && rt.row.status === 'running' && !rt.closing) await rt.slot.reset();
    }
  } catch (err) {
    await rt.fail(err);
  } finally {
    rt.busy = false;
  }
  // A message that arrived while the loop was winding down is not left waiting.
  if (rt.row.status === 'running' && !rt.closing && nextInput(rt) !== undefined) void pump(rt);
}

/** null: continue after tool results; the next user message; undefined: nothing to do. */
function nextInput(rt: SessionRuntime): PendingInput | null | undefined {
  if (rt.row.continuing) return null;
  return rt.pending[0];
}

async function runTurn(rt: SessionRuntime, next: PendingInput | null): Promise<boolean> {
  const input = next?.content ?? null;
  const runner = await rt.slot.ensure('crash');
  const agent = rt.slot.agent!;
  const turn = rt.row.turns + 1;
  const { credits } = rt.deps;
  let reservation: string | null;
  try {
    // A message paid for in advance (a council stage reserves its members' turns) is answered on that reservation.
    reservation = next?.reservationId ?? (await credits.reserve(rt.tenantId, { agentId: rt.row.agent_id, sessionId: rt.id, provider: agent.provider, model: agent.model }));
  } catch (err) {
    if (err instanceof RoostError && CREDIT_CODES.has(err.code)) {
      await rt.pause(err.code, err.message);
      return false;
    }
    throw err;
  }
  const release = async () => {
    if (!reservation) return;
    await credits.release(rt.tenantId, reservation).catch(() => undefined);
    // A released advance reservation is spent: the message, when it is tried again, reserves anew.
    if (next?.reservationId) await rt.save({ pending_inputs: JSON.stringify(rt.pending.map((p) => (p.seq === next.seq ? { content: p.content, seq: p.seq } : p))) });
  };
  if (rt.row.status !== 'running' || rt.closing) {
    await release();
    return false;
  }
  rt.record('turn_start', { input: input === null ? 'continue' : 'message' });
  let reply: TurnReply;
  try {
    reply = await runner.turn(input, rt.deps.ctx.host.traceContext());
  } catch (err) {
    await release();
    return turnFailed(rt, err, runner);
  }
  const usage = { ...reply.usage, provider: agent.provider, model: reply.model };
  const cost = reservation
    ? await credits.commit(rt.tenantId, reservation, usage).catch((err: Error) => {
      rt.deps.ctx.host.log('warn', `session ${rt.id}: the turn ran but could not be billed: ${err.message}`);
      return 0;
    })
    : 0;
  rt.slot.contextTurns++;
  rt.slot.forgetCrashes();
  await rt.save({
    turns: turn,
    continuing: !reply.done,
    pending_inputs: JSON.stringify(input === null ? rt.pending : rt.pending.slice(1)),
    cost_micro: rt.row.cost_micro + cost,
    input_tokens: rt.row.input_tokens + reply.usage.inputTokens,
    output_tokens: rt.row.output_tokens + reply.usage.outputTokens,
    resume_attempts: 0,
  });
  rt.log.append('turn_end', { usage: reply.usage, cost, model: reply.model, stopReason: reply.stopReason, done: reply.done, toolUses: reply.toolUses }, turn);
  await rt.log.flush();
  return true;
}

/** Why a turn did not happen decides what comes next: retry, pause, or give up. */
async function turnFailed(rt: SessionRuntime, err: unknown, runner: RunnerProcess): Promise<boolean> {
  if (rt.closing || rt.row.status !== 'running') return false; // stopped, timed out or paused meanwhile
  const code = err instanceof RoostError ? err.code : 'INTERNAL';
  if (!runner.running || code === 'EXTENSION_UNAVAILABLE') {
    // The runner died under the turn: a fresh one (from the summary) retries it, within the crash budget.
    if (rt.slot.noteCrash()) return true;
    await rt.crashLimitReached();
    return false;
  }
  if (isOutage(err)) {
    await rt.pause(code, (err as RoostError).message);
    return false;
  }
  if (code === 'CANCELLED') return false;
  await rt.fail(err);
  return false;
}
