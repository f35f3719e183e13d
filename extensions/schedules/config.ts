// The scheduler's limits, from the ROOST_EXT_SCHEDULER_* variables the kernel passes to extensions.
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
  /** How long an execution's action may run before it fails with TIMEOUT. */
  executionTimeoutSeconds: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

export function schedulerConfig(env: NodeJS.ProcessEnv = process.env): SchedulerConfig {
  return {
    minIntervalSeconds: int(env, 'ROOST_EXT_SCHEDULER_MIN_INTERVAL_SECONDS', 300, 1, 86_400 * 366),
    maxConcurrent: int(env, 'ROOST_EXT_SCHEDULER_MAX_CONCURRENT', 10, 1, 10_000),
    failureLimit: int(env, 'ROOST_EXT_SCHEDULER_FAILURE_LIMIT', 5, 1, 1_000),
    missedRunCap: int(env, 'ROOST_EXT_SCHEDULER_MISSED_RUN_CAP', 10, 1, 1_000),
    missedGraceSeconds: int(env, 'ROOST_EXT_SCHEDULER_MISSED_GRACE_SECONDS', 60, 0, 86_400),
    tickMs: int(env, 'ROOST_EXT_SCHEDULER_TICK_MS', 1_000, 10, 60_000),
    executionTimeoutSeconds: int(env, 'ROOST_EXT_SCHEDULER_EXECUTION_TIMEOUT_SECONDS', 3_600, 1, 86_400),
  };
}
