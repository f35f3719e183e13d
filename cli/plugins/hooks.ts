// Plugin hooks: post_install (run by the installer) and pre_push (run before every `work push`).
// A hook is an executable in the plugin that speaks cli-v1 like a command; its init.args are
// [<hook kind>] (pre_push adds --branch <b> --remote <r>) and ROOST_HOOK names the kind. Hooks never ask questions: they run non-interactively.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { roostHome } from './home.js';
import { readRegistry, type RegistryEntry } from './registry.js';
import { runPlugin } from './run.js';

export type HookKind = 'post_install' | 'pre_push';

export interface HookResult {
  plugin: string;
  code: number;
  /** What the hook printed (output, log and stderr lines), the tail when it was long. */
  output: string;
}

const OUTPUT_TAIL_BYTES = 64 * 1024;

export function hookTimeoutMs(): number {
  const seconds = Number(process.env.ROOST_HOOK_TIMEOUT ?? 300);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
}

export interface HookContext {
  cwd: string;
  log(msg: string): void;
  /** pre_push: the branch being pushed and the remote it goes to (passed as --branch / --remote). */
  branch?: string;
  remote?: string;
}

export async function runHook(entry: RegistryEntry, kind: HookKind, ctx: HookContext, home = roostHome()): Promise<HookResult> {
  const binary = entry.hooks[kind]!;
  let captured = '';
  const keep = (text: string) => {
    captured = (captured + text).slice(-OUTPUT_TAIL_BYTES);
  };
  const outcome = await runPlugin(entry, binary, {
    home,
    cwd: ctx.cwd,
    args: [kind, ...(ctx.branch ? ['--branch', ctx.branch] : []), ...(ctx.remote ? ['--remote', ctx.remote] : [])],
    env: { ROOST_HOOK: kind },
    ask: async (question) => {
      if (question.default !== undefined) return question.default;
      throw new RoostError('USAGE', `${question.message}: a ${kind} hook cannot ask questions`);
    },
    output: (text) => {
      keep(text);
      ctx.log(text.replace(/\n$/, ''));
    },
    log: (line) => {
      keep(`${line}\n`);
      ctx.log(line);
    },
    timeoutMs: hookTimeoutMs(),
  });
  return { plugin: entry.name, code: outcome.code, output: captured };
}

/** Runs every installed plugin's pre_push hook in turn; a failing hook makes the push stop. */
export async function runPrePushHooks(ctx: HookContext): Promise<{ ok: boolean; failures: HookResult[] }> {
  const home = roostHome();
  const registry = await readRegistry(home);
  const failures: HookResult[] = [];
  for (const entry of registry.plugins.filter((p) => p.hooks.pre_push)) {
    ctx.log(`roost: pre_push hook of ${entry.name}`);
    try {
      const result = await runHook(entry, 'pre_push', ctx, home);
      if (result.code !== 0) failures.push(result);
    } catch (err) {
      const message = toRoostError(err).code === 'INTERNAL' ? String(err) : toRoostError(err).message;
      failures.push({ plugin: entry.name, code: 127, output: message });
    }
  }
  return { ok: failures.length === 0, failures };
}
