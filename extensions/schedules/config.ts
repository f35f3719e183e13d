// The scheduler's limits: this extension's settings, ROOST_EXT_SCHEDULES_* (sdk/settings.ts).
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';

export interface SchedulerConfig {
  /** The shortest gap between two runs a schedule may ask for (cron or interval). */
  minIntervalSeconds: number;
  /** Executions running at once, over every tenant. */
  maxConcurrent: number;
  /** Consecutive failures after which a schedule is paused. */
  failureLimit: number;
  /** At most this many missed runs are made up by the `run_all` policy. */
  missedRunCap: number;
  /** A due run older than this when the scheduler gets to it was missed (the server was down or stalled). */
  missedGraceSeconds: number;
  /** How often the scheduler looks for due schedules (real time). */
  tickMs: number;
  /** How long an execution's action (with what it started, to its end) may run before it fails with TIMEOUT. */
  executionTimeoutSeconds: number;
  /** How long a run waits for the owner's approval unless its schedule says otherwise; then it expires. */
  approvalWindowSeconds: number;
  /** An instance whose heartbeat is older than this is gone: its running executions are INTERRUPTED (PostgreSQL). */
  instanceExpirySeconds: number;
}

export function schedulerConfig(ctx: ExtensionContext): SchedulerConfig {
  const int = (name: string, fallback: number, min: number, max: number) => integerSetting(ctx, name, fallback, min, max);
  return {
    minIntervalSeconds: int('MIN_INTERVAL_SECONDS', 300, 1, 86_400 * 366),
    maxConcurrent: int('MAX_CONCURRENT', 10, 1, 10_000),
    failureLimit: int('FAILURE_LIMIT', 5, 1, 1_000),
    missedRunCap: int('MISSED_RUN_CAP', 10, 1, 1_000),
    missedGraceSeconds: int('MISSED_GRACE_SECONDS', 60, 0, 86_400),
    tickMs: int('TICK_MS', 1_000, 10, 60_000),
    executionTimeoutSeconds: int('EXECUTION_TIMEOUT_SECONDS', 3_600, 1, 86_400),
    approvalWindowSeconds: int('APPROVAL_WINDOW_SECONDS', 86_400, 60, 86_400 * 366),
    instanceExpirySeconds: int('INSTANCE_EXPIRY_SECONDS', 30, 5, 3_600),
  };
}
