// A review panel: every member critiques the same target at the same time. A member that fails keeps
// its error and never takes the others down with it.
import { performance } from 'node:perf_hooks';
import { toRoostError } from '../../protocol/errors.js';
import type { ModelChoice } from '../ai/model-spec.js';
import type { AiConfig } from '../ai/resolve.js';
import type { ProviderName, Usage } from '../../lib/providers/index.js';
import { parseFindings, type Finding } from './findings.js';
import { REVIEW_SYSTEM_PROMPT, reviewMessages } from './prompt.js';
import type { ReviewTarget } from './target.js';

export interface MemberResult {
  provider: ProviderName;
  model: string;
  ok: boolean;
  durationMs: number;
  usage: Usage | null;
  format?: 'findings' | 'text';
  findings?: Finding[];
  /** The model's answer as written, when it gave no findings list. */
  text?: string;
  error?: { code: string; message: string };
}

export interface PanelOptions {
  timeoutMs: number;
  maxTokens: number;
}

export async function runPanel(ai: AiConfig, members: ModelChoice[], target: ReviewTarget, options: PanelOptions): Promise<MemberResult[]> {
  const durations: number[] = [];
  const settled = await Promise.allSettled(
    members.map(async (member, i) => {
      const started = performance.now();
      try {
        return await critique(ai, member, target, options);
      } finally {
        durations[i] = Math.round(performance.now() - started);
      }
    }),
  );
  return settled.map((outcome, i) => {
    const { provider, model } = members[i]!;
    const durationMs = durations[i]!;
    if (outcome.status === 'fulfilled') return { provider, model, ok: true, durationMs, ...outcome.value };
    const error = toRoostError(outcome.reason);
    const message = error.code === 'INTERNAL' && outcome.reason instanceof Error ? outcome.reason.message : error.message;
    return { provider, model, ok: false, durationMs, usage: null, error: { code: error.code, message } };
  });
}

async function critique(ai: AiConfig, member: ModelChoice, target: ReviewTarget, options: PanelOptions) {
  const client = ai.createClient(member.provider, member.model);
  const answer = await client.complete({
    system: REVIEW_SYSTEM_PROMPT,
    messages: reviewMessages(target),
    maxTokens: options.maxTokens,
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const parsed = parseFindings(answer.text, target.path ?? '');
  return { usage: answer.usage, ...parsed };
}
