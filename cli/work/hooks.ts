// pre_push hooks of installed plugins run before every push. The plugin system implements
// `runPrePushHooks` in cli/plugins/hooks.ts, loaded only when a push runs.
import { RoostError } from '../../protocol/errors.js';

export interface PrePushHookContext {
  /** Top of the repository being pushed; hooks run there. */
  cwd: string;
  /** Progress lines for the person (stderr). */
  log(message: string): void;
  /** The branch about to be pushed. */
  branch: string;
  /** The remote pushed to ("origin"). */
  remote: string;
}

export interface PrePushFailure {
  plugin: string;
  /** The hook's exit code. */
  code: number;
  /** What the hook printed (its tail). */
  output: string;
}

export interface PrePushResult {
  ok: boolean;
  failures: PrePushFailure[];
}

export type RunPrePushHooks = (ctx: PrePushHookContext) => Promise<PrePushResult>;

/** Runs the hooks (when a plugin system is installed); a failing hook throws HOOK_FAILED. */
export async function runPrePushHooks(ctx: PrePushHookContext): Promise<{ ran: boolean }> {
  const { runPrePushHooks: run } = await import('../plugins/hooks.js');
  const result = await run(ctx);
  if (!result.ok) {
    const why = result.failures.map((f) => `${f.plugin} (exit ${f.code})${lastLines(f.output)}`).join('; ') || 'a hook failed';
    throw new RoostError('HOOK_FAILED', `pre_push hook failed, nothing was pushed: ${why}`, { details: result.failures });
  }
  return { ran: true };
}

/** The end of what a hook printed, on one line. */
function lastLines(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(-3);
  return lines.length > 0 ? `: ${lines.join('; ')}` : '';
}
