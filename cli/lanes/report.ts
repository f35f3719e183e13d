// What a lane run reports: one record per step (nested for lanes and parallel groups), printed as
// JSON under --json and as an indented summary otherwise.
import type { PlanNode } from './plan.js';

export type StepStatus = 'passed' | 'failed' | 'skipped' | 'timeout' | 'planned';

export interface StepReport {
  name: string;
  kind: PlanNode['kind'];
  status: StepStatus;
  durationMs: number;
  command?: string;
  exitCode?: number;
  attempts?: number;
  outputTail?: string;
  /** Why a step was skipped. */
  reason?: string;
  /** True when the step already ran earlier in this lane run (a diamond) and its result is reused. */
  reused?: boolean;
  when?: string;
  timeout?: number;
  retries?: number;
  steps?: StepReport[];
}

export const isFailure = (status: StepStatus) => status === 'failed' || status === 'timeout';

/** The plan as a report, nothing run (--dry-run). */
export function plannedReport(node: PlanNode): StepReport {
  const base = { name: node.name, kind: node.kind, status: 'planned' as const, durationMs: 0 };
  switch (node.kind) {
    case 'lane':
      return { ...base, steps: node.children.map(plannedReport) };
    case 'parallel':
      return { ...base, ...optional({ when: node.when }), steps: node.children.map(plannedReport) };
    case 'run':
      return { ...base, command: node.command, ...optional({ when: node.when, timeout: node.timeout, retries: node.retries || undefined }) };
    default:
      return { ...base, command: node.command };
  }
}

export function skippedReport(node: PlanNode, reason: string): StepReport {
  return { name: node.name, kind: node.kind, status: 'skipped', durationMs: 0, reason, ...('command' in node ? { command: node.command } : {}) };
}

const MARK: Record<StepStatus, string> = { passed: '✓', failed: '✗', skipped: '-', timeout: '⏱', planned: '•' };

export function renderReport(report: StepReport, depth = 0): string {
  const pad = '  '.repeat(depth);
  const detail = report.status === 'planned'
    ? [report.command === report.name ? undefined : report.command, report.when && `when ${report.when}`, report.timeout && `timeout ${report.timeout}s`, report.retries && `retries ${report.retries}`]
    : [report.status, report.exitCode ? `exit ${report.exitCode}` : undefined, report.reason, report.reused ? 'reused' : undefined,
       (report.attempts ?? 1) > 1 ? `${report.attempts} attempts` : undefined, report.status !== 'skipped' ? seconds(report.durationMs) : undefined];
  const label = report.kind === 'lane' ? `lane ${report.name}` : report.name;
  const line = `${pad}${MARK[report.status]} ${[label, detail.filter(Boolean).join(', ')].filter(Boolean).join('  ')}`;
  return [line, ...(report.steps ?? []).map((s) => renderReport(s, depth + 1))].join('\n');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function optional<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
