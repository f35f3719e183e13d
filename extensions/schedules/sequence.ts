// An execution's actions, run in order, each with its own result. The first failure stops the run and
// fails the execution, unless the failed action says `continueOnError`: its failure is recorded and the
// next action runs. A cancel or the timeout stops the run whatever an action says.
import { performance } from 'node:perf_hooks';
import { toRoostError } from '../../protocol/errors.js';
import { costOfFailure, type EffectKind } from '../../sdk/effects.js';
import { perform, type Action, type ActionRun } from './actions.js';

export interface ActionResult {
  /** Its place in the list, from 0. */
  index: number;
  type: Action['type'];
  /** skipped: an action before it failed (without continueOnError), or the run was cancelled. */
  status: 'succeeded' | 'failed' | 'skipped';
  result: unknown;
  errorCode: string | null;
  error: string | null;
  sessionId: string | null;
  effect: { kind: EffectKind; id: string } | null;
  /** MicroUnits its sessions were charged. */
  cost: number;
  durationMs: number | null;
}

export interface SequenceOutcome {
  results: ActionResult[];
  /** What every action cost together. */
  cost: number;
  /** What failed the execution, when something did. */
  failure?: { index: number; error: unknown };
}

/** The first action keeps the key executions always had, so a retried single-action run matches it. */
export const idempotencyKeyOf = (executionId: string, index: number) => `schedule-execution:${executionId}${index === 0 ? '' : `:${index}`}`;

/**
 * Runs `actions` one after the other with `base` (its onStarted sees each thing an action starts) and
 * hands the results to `save` after each action, so a reader follows the run.
 */
export async function runActions(actions: Action[], executionId: string, base: Omit<ActionRun, 'idempotencyKey'>, save: (results: ActionResult[]) => Promise<void>): Promise<SequenceOutcome> {
  const results: ActionResult[] = actions.map((action, index) => ({ index, type: action.type, status: 'skipped', result: null, errorCode: null, error: null, sessionId: null, effect: null, cost: 0, durationMs: null }));
  let cost = 0;
  for (const [index, action] of actions.entries()) {
    const mine = results[index]!;
    const started = performance.now();
    const run: ActionRun = {
      ...base,
      idempotencyKey: idempotencyKeyOf(executionId, index),
      onStarted: async (what) => {
        if (what.kind === 'session') mine.sessionId = what.id;
        else mine.effect = { kind: what.kind, id: what.id };
        await base.onStarted(what);
      },
    };
    let stop: { error: unknown } | undefined;
    try {
      const outcome = await perform(action, run);
      Object.assign(mine, { status: 'succeeded', result: outcome.result ?? null, cost: Math.max(0, Math.round(outcome.cost)) });
    } catch (err) {
      const error = toRoostError(err);
      Object.assign(mine, { status: 'failed', errorCode: error.code, error: error.message, cost: Math.max(0, Math.round(costOfFailure(err))) });
      if (!action.continueOnError || base.signal.aborted) stop = { error: err };
    }
    mine.durationMs = Math.round(performance.now() - started);
    cost += mine.cost;
    await save(results);
    if (stop) return { results, cost, failure: { index, error: stop.error } };
  }
  return { results, cost };
}
