// Runs a planned lane. Steps of a lane run in order (a parallel step runs its items together); with
// fail_fast a failure skips the lane's remaining steps, without it every step runs. A lane, task or
// plugin command reached twice in one run (a diamond) runs once and the second place reuses its result.
import { palette } from '../colour.js';
import { OutputTail } from '../tasks/tail.js';
import { ProcessGroups } from './groups.js';
import type { LanePlan, ParallelPlan, PlanNode, PluginPlan, RunPlan, TaskPlan } from './plan.js';
import { runStepProcess } from './process.js';
import { isFailure, seconds, skippedReport, type StepReport } from './report.js';
import { prefixedSink, rootSink, type Sink } from './sink.js';
import { conditionHolds } from './when.js';

export interface LaneRun {
  report: StepReport;
  interrupted: boolean;
}

export async function executeLane(plan: LanePlan, options: { root: string; json: boolean }): Promise<LaneRun> {
  const executor = new Executor(options.root);
  const onSignal = () => {
    if (executor.abort.signal.aborted) process.exit(130);
    process.stderr.write('roost: interrupted; stopping the lane\n');
    executor.abort.abort();
    void executor.groups.killAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const report = await executor.node(plan, rootSink(options.json), plan.name);
    return { report, interrupted: executor.abort.signal.aborted };
  } finally {
    await executor.groups.killAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

class Executor {
  readonly groups = new ProcessGroups();
  readonly abort = new AbortController();
  private readonly results = new Map<string, Promise<StepReport>>();

  constructor(private readonly root: string) {}

  node(node: PlanNode, sink: Sink, lane: string): Promise<StepReport> {
    switch (node.kind) {
      case 'run': return this.run(node, sink, lane);
      case 'parallel': return this.parallel(node, sink, lane);
      default: return this.once(node, sink, lane);
    }
  }

  private once(node: LanePlan | TaskPlan | PluginPlan, sink: Sink, lane: string): Promise<StepReport> {
    const earlier = this.results.get(node.key);
    if (earlier) {
      return earlier.then(({ name, kind, status, command, exitCode }) =>
        ({ name, kind, status, durationMs: 0, ...(command ? { command } : {}), ...(exitCode !== undefined ? { exitCode } : {}), reused: true }));
    }
    const result = node.kind === 'lane' ? this.lane(node, sink)
      : node.kind === 'task' ? this.leaf(node, sink, () => this.spawn(node.argv, sink, lane))
      : this.leaf(node, sink, () => this.plugin(node, sink, lane));
    this.results.set(node.key, result);
    return result;
  }

  private async lane(node: LanePlan, sink: Sink): Promise<StepReport> {
    const started = performance.now();
    const steps: StepReport[] = [];
    let failed = false;
    for (const child of node.children) {
      if (this.abort.signal.aborted) steps.push(skippedReport(child, 'interrupted'));
      else if (failed && node.lane.failFast) steps.push(skippedReport(child, 'fail_fast: an earlier step failed'));
      else {
        const report = await this.node(child, sink, node.name);
        steps.push(report);
        failed ||= isFailure(report.status);
      }
    }
    return { name: node.name, kind: 'lane', status: failed ? 'failed' : 'passed', durationMs: elapsed(started), steps };
  }

  private async parallel(node: ParallelPlan, sink: Sink, lane: string): Promise<StepReport> {
    if (node.when && !(await conditionHolds(node.when, { cwd: this.root, env: this.env(lane) }))) {
      return skippedReport(node, `when "${node.when}" is false`);
    }
    const started = performance.now();
    // Items already running finish even when one fails (like make without -k); fail_fast applies after.
    const steps = await Promise.all(node.children.map((child) => this.node(child, prefixedSink(sink, child.name), lane)));
    const status = steps.some((s) => isFailure(s.status)) ? 'failed' : 'passed';
    return { name: node.name, kind: 'parallel', status, durationMs: elapsed(started), steps };
  }

  private async run(node: RunPlan, sink: Sink, lane: string): Promise<StepReport> {
    if (node.when && !(await conditionHolds(node.when, { cwd: this.root, env: this.env(lane) }))) {
      return skippedReport(node, `when "${node.when}" is false`);
    }
    let attempts = 0;
    const report = await this.leaf(node, sink, async () => {
      let outcome;
      do {
        attempts++;
        if (attempts > 1) sink.err(`▸ ${node.name}: retry ${attempts - 1} of ${node.retries}\n`);
        outcome = await this.spawn(node.command, sink, lane, node.timeout);
      } while ((outcome.timedOut || outcome.exitCode !== 0) && attempts <= node.retries && !this.abort.signal.aborted);
      return outcome;
    });
    return { ...report, attempts };
  }

  /** Logs the start and the end of a step that runs something, and turns its outcome into a report. */
  private async leaf(
    node: RunPlan | TaskPlan | PluginPlan, sink: Sink,
    work: () => Promise<{ exitCode: number; timedOut: boolean; outputTail: string }>,
  ): Promise<StepReport> {
    const started = performance.now();
    sink.err(`▸ ${node.name}${node.command === node.name ? '' : `: ${node.command}`}\n`);
    const outcome = await work();
    const status = outcome.timedOut ? 'timeout' : outcome.exitCode === 0 ? 'passed' : 'failed';
    const durationMs = elapsed(started);
    const how = status === 'timeout' ? `timed out after ${node.kind === 'run' ? node.timeout : '?'}s` : status === 'failed' ? `exit ${outcome.exitCode}` : 'passed';
    const paint = palette(process.stderr);
    sink.err(`${status === 'passed' ? paint.green('✓') : paint.red('✗')} ${node.name}: ${how} (${seconds(durationMs)})\n`);
    sink.flush();
    return { name: node.name, kind: node.kind, command: node.command, status, durationMs, exitCode: outcome.exitCode, outputTail: outcome.outputTail };
  }

  private spawn(command: string[] | string, sink: Sink, lane: string, timeout?: number) {
    return runStepProcess(command, { cwd: this.root, env: this.env(lane), timeout, sink, groups: this.groups });
  }

  private async plugin(node: PluginPlan, sink: Sink, lane: string) {
    const tail = new OutputTail();
    const write = (text: string) => {
      tail.push(text);
      sink.out(text);
    };
    let exitCode: number;
    try {
      exitCode = await node.step.run({ cwd: this.root, env: this.env(lane), write, signal: this.abort.signal });
    } catch (err) {
      sink.err(`roost: ${node.name}: ${(err as Error).message}\n`);
      tail.push((err as Error).message);
      exitCode = 1;
    }
    return { exitCode, timedOut: false, outputTail: tail.value() };
  }

  private env(lane: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    return { ...env, ROOST_PROJECT_ROOT: this.root, ROOST_LANE: lane };
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
