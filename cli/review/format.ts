// The human-readable report of a review.
import type { MemberResult } from './panel.js';
import type { ReviewTarget } from './target.js';

export function describeTarget(target: ReviewTarget): string {
  if (target.kind === 'file') return `file ${target.path}`;
  return `${target.files.length} changed file(s) against HEAD${target.truncated ? ' (diff cut to fit)' : ''}`;
}

export function formatReview(target: ReviewTarget, members: MemberResult[]): string {
  const lines = [`Reviewed ${describeTarget(target)} with ${members.length} model(s).`];
  for (const skipped of target.skipped) lines.push(`  (skipped ${skipped.path}: ${skipped.reason})`);
  for (const member of members) {
    lines.push('');
    const name = `${member.provider}:${member.model}`;
    const seconds = (member.durationMs / 1000).toFixed(1);
    if (!member.ok) {
      lines.push(`✗ ${name} failed after ${seconds}s: ${member.error?.message}`);
      continue;
    }
    const tokens = member.usage ? `, ${member.usage.inputTokens} in / ${member.usage.outputTokens} out tokens` : '';
    if (member.format === 'text') {
      lines.push(`● ${name} answered in prose (${seconds}s${tokens}):`);
      lines.push(...(member.text ?? '').split('\n').map((l) => `  ${l}`));
      continue;
    }
    const findings = member.findings ?? [];
    lines.push(`● ${name}: ${findings.length === 0 ? 'no findings' : `${findings.length} finding(s)`} (${seconds}s${tokens})`);
    for (const f of findings) {
      const where = f.line === null ? f.file : `${f.file}:${f.line}`;
      lines.push(`  ${f.severity.padEnd(8)}${where}  ${f.message}`);
    }
  }
  return lines.join('\n');
}
