// The exit code of a failed lane run: the first failing step's own (found depth first through nested
// lanes and parallel groups), 124 for a step that timed out — so CI sees what `roost run` would show.
import { isFailure, type StepReport } from './report.js';

const TIMEOUT_EXIT = 124;

export function failingExitCode(steps: StepReport[]): number {
  const failed = steps.find((step) => isFailure(step.status));
  if (!failed) return 1;
  if (failed.steps?.length) return failingExitCode(failed.steps);
  if (failed.status === 'timeout') return TIMEOUT_EXIT;
  return failed.exitCode && failed.exitCode > 0 ? failed.exitCode : 1;
}
