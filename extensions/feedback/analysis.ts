// The week against the one before: each rate's change, said in words when it moved enough to matter,
// and the short outcome summary a session's prompt can carry.
import type { Rates } from './rates.js';

export interface Change {
  metric: string;
  previous: number | null;
  current: number | null;
  /** current − previous, in the rate's own unit (a share 0–1); null when either side had nothing. */
  change: number | null;
  /** `better`, `worse` or `steady` (a move under 5 points, or nothing to compare). */
  verdict: 'better' | 'worse' | 'steady';
}

/** A rate must move this much (5 percentage points) to be called better or worse. */
const NOTABLE = 0.05;

const RATES: Array<{ metric: string; read: (r: Rates) => number | null; higherIsBetter: boolean; words: string }> = [
  { metric: 'sessions.successRate', read: (r) => r.sessions.successRate, higherIsBetter: true, words: 'sessions that completed' },
  { metric: 'approvals.deniedRate', read: (r) => r.approvals.deniedRate, higherIsBetter: false, words: 'tool uses denied' },
  { metric: 'councils.meanAgreement', read: (r) => r.councils.meanAgreement, higherIsBetter: true, words: 'council agreement' },
  { metric: 'workTasks.mergeRate', read: (r) => r.workTasks.mergeRate, higherIsBetter: true, words: 'work tasks merged' },
];

const percent = (n: number) => `${Math.round(n * 100)}%`;

export function compare(previous: Rates, current: Rates): { changes: Change[]; findings: string[] } {
  const changes: Change[] = [];
  const findings: string[] = [];
  for (const rate of RATES) {
    const before = rate.read(previous);
    const now = rate.read(current);
    const change = before === null || now === null ? null : Math.round((now - before) * 1000) / 1000;
    const verdict = change === null || Math.abs(change) < NOTABLE ? 'steady' : (change > 0) === rate.higherIsBetter ? 'better' : 'worse';
    changes.push({ metric: rate.metric, previous: before, current: now, change, verdict });
    if (verdict !== 'steady') findings.push(`${rate.words}: ${percent(before!)} → ${percent(now!)} (${verdict})`);
  }
  return { changes, findings };
}

/** A few lines a prompt can include: what happened lately, plainly; empty when nothing did. */
export function summary(rates: Rates, days: number, hot: { failingAgents: Array<{ agentId: string; failed: number }>; deniedTools: Array<{ tool: string; denied: number }> }): string {
  const lines: string[] = [];
  const { sessions, approvals, councils, workTasks } = rates;
  if (sessions.successRate !== null) lines.push(`${sessions.completed + sessions.failed} sessions ended, ${percent(sessions.successRate)} completed`);
  if (approvals.deniedRate !== null) lines.push(`${approvals.denied} of ${approvals.allowed + approvals.denied} tool uses denied${hot.deniedTools[0] ? ` (most often ${hot.deniedTools[0].tool})` : ''}`);
  if (councils.meanAgreement !== null) lines.push(`${councils.concluded} councils concluded, ${percent(councils.meanAgreement)} agreement on average`);
  if (workTasks.mergeRate !== null) lines.push(`${workTasks.merged} of ${workTasks.merged + workTasks.failed} work tasks merged`);
  return lines.length === 0 ? '' : `Outcomes of the last ${days} day${days === 1 ? '' : 's'}: ${lines.join('; ')}.`;
}
