// `roost review`: the working changes (or one file) critiqued by the active model and any extra panel
// members named with --with-model, all at once. Exit 1 only when every member failed.
import { parseModelSpec, type ModelChoice } from '../ai/model-spec.js';
import { AiConfig } from '../ai/resolve.js';
import type { CliContext } from '../context.js';
import { EXIT, usageError, type CommandResult } from '../output.js';
import { describeTarget, formatReview } from '../review/format.js';
import { runPanel } from '../review/panel.js';
import { diffTarget, fileTarget, type ReviewTarget } from '../review/target.js';
import type { CommandInput } from '../tree.js';

const DEFAULT_TIMEOUT_SECONDS = 300;
const DEFAULT_MAX_TOKENS = 4096;

export async function handler(input: CommandInput, ctx: CliContext): Promise<CommandResult> {
  const { options } = input;
  const timeoutSeconds = positiveNumber(options.timeout, '--timeout', DEFAULT_TIMEOUT_SECONDS, 3600);
  const maxTokens = positiveNumber(options.maxTokens, '--max-tokens', DEFAULT_MAX_TOKENS, 128_000);
  if (!Number.isInteger(maxTokens)) throw usageError('--max-tokens must be a whole number');
  const file = options.file === undefined ? undefined : String(options.file);
  if (file !== undefined && file.trim() === '') throw usageError('--file needs a path');

  const ai = await AiConfig.load(ctx.cwd, process.env, {
    provider: options.provider === undefined ? undefined : String(options.provider),
    model: options.model === undefined ? undefined : String(options.model),
  });
  const members = panelMembers(ai, listOf(options.withModel));

  const target = file !== undefined ? await fileTarget(ctx.cwd, file) : await diffTarget(ctx.cwd);
  const summary = summarize(target);
  if (target.files.length === 0) {
    const skippedNote = target.skipped.length ? ` (${target.skipped.length} untracked file(s) skipped: binary or too large)` : '';
    return {
      data: { target: summary, members: [] },
      text: `Nothing to review: no changes against HEAD (staged, unstaged or untracked)${skippedNote}.`,
    };
  }

  if (!ctx.json) ctx.log(`Reviewing ${describeTarget(target)} with ${members.map((m) => `${m.provider}:${m.model}`).join(', ')}…`);
  const results = await runPanel(ai, members, target, { timeoutMs: timeoutSeconds * 1000, maxTokens });
  const allFailed = results.every((r) => !r.ok);
  return {
    data: { target: summary, members: results },
    text: formatReview(target, results),
    exitCode: allFailed ? EXIT.FAILURE : EXIT.OK,
  };
}

/** The active model first, then each --with-model in order; the same provider:model only once. */
function panelMembers(ai: AiConfig, specs: string[]): ModelChoice[] {
  const members: ModelChoice[] = [{ provider: ai.provider.value, model: ai.model.value }];
  for (const spec of specs) {
    const choice = parseModelSpec(spec, ai.provider.value);
    if (!members.some((m) => m.provider === choice.provider && m.model === choice.model)) members.push(choice);
  }
  return members;
}

function summarize(target: ReviewTarget): Record<string, unknown> {
  return {
    kind: target.kind,
    ...(target.path !== undefined ? { path: target.path } : {}),
    files: target.files,
    skipped: target.skipped,
    chars: target.content.length,
    truncated: target.truncated,
  };
}

/** cac gives a repeated flag as an array and a single one as a value. */
function listOf(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function positiveNumber(value: unknown, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (Array.isArray(value) || !Number.isFinite(n) || n <= 0 || n > max) {
    throw usageError(`${flag} must be a number between 0 and ${max} (got "${String(value)}")`);
  }
  return n;
}
