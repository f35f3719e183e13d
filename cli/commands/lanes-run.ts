// `roost lanes run <lane> [--dry-run]`: plans the whole lane (refusing cycles and unknown steps before
// anything runs), then runs it and reports every step.
import type { CommandHandler } from '../tree.js';
import { detectProject } from '../../lib/project/detect.js';
import { loadLanes } from '../lanes/config.js';
import { executeLane } from '../lanes/execute.js';
import { failingExitCode } from '../lanes/exit-code.js';
import { planLane } from '../lanes/plan.js';
import { loadPluginStepResolver } from '../lanes/plugin-steps.js';
import { plannedReport, renderReport } from '../lanes/report.js';

const INTERRUPTED = 130;

export const handler: CommandHandler = async ({ args, options }, ctx) => {
  const project = detectProject(ctx.cwd);
  const lanes = loadLanes(project.root);
  const plan = await planLane(args[0]!, { lanes, project, resolvePlugin: await loadPluginStepResolver() });
  const base = { lane: plan.name, root: project.root, source: plan.lane.source };
  if (options.dryRun) {
    const report = plannedReport(plan);
    return { data: { ...base, dryRun: true, status: 'planned', durationMs: 0, steps: report.steps }, text: renderReport(report) };
  }
  const { report, interrupted } = await executeLane(plan, { root: project.root, json: ctx.json });
  const exitCode = interrupted ? INTERRUPTED : report.status === 'passed' ? 0 : failingExitCode(report.steps ?? []);
  return {
    data: { ...base, dryRun: false, status: report.status, durationMs: report.durationMs, steps: report.steps },
    text: renderReport(report),
    exitCode,
  };
};
