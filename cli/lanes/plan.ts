// Turns a lane into a tree of steps before anything runs: names resolve to a lane first, then a
// built-in task of the detected stack, then a plugin command; a cycle between lanes is refused here.
import { relative } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { usageError } from '../output.js';
import { findTask, listTasks, taskArgv, type Project } from '../../lib/project/detect.js';
import { shellQuote } from '../tasks/quote.js';
import type { LaneDef, LaneSet, RunStepDef, StepDef } from './config.js';
import { didYouMean } from '../suggest.js';
import type { ExternalStep, PluginStepResolver } from './plugin-steps.js';

export interface LanePlan { kind: 'lane'; key: string; name: string; lane: LaneDef; children: PlanNode[] }
export interface TaskPlan { kind: 'task'; key: string; name: string; argv: string[]; command: string }
export interface PluginPlan { kind: 'plugin'; key: string; name: string; step: ExternalStep; command: string }
export interface RunPlan { kind: 'run'; name: string; command: string; when?: string; timeout?: number; retries: number }
export interface ParallelPlan { kind: 'parallel'; name: string; when?: string; children: PlanNode[] }
export type PlanNode = LanePlan | TaskPlan | PluginPlan | RunPlan | ParallelPlan;

export interface PlanContext {
  lanes: LaneSet;
  project: Project;
  resolvePlugin?: PluginStepResolver;
}

export async function planLane(name: string, context: PlanContext): Promise<LanePlan> {
  if (!context.lanes.lanes.has(name)) {
    const known = [...context.lanes.lanes.keys()];
    throw usageError(`unknown lane "${name}"${didYouMean(name, known)}; ${known.length > 0 ? `lanes: ${known.join(', ')}` : `no lanes.toml in ${context.project.root}`}`);
  }
  return new Planner(context).lane(name);
}

class Planner {
  /** Each lane is planned once; a lane reached twice (a diamond) shares its plan. */
  private readonly planned = new Map<string, LanePlan>();
  private readonly path: string[] = [];

  constructor(private readonly context: PlanContext) {}

  async lane(name: string): Promise<LanePlan> {
    const done = this.planned.get(name);
    if (done) return done;
    if (this.path.includes(name)) {
      const cycle = [...this.path.slice(this.path.indexOf(name)), name].join(' → ');
      throw new RoostError('VALIDATION_ERROR', `lane cycle: ${cycle}`);
    }
    const lane = this.context.lanes.lanes.get(name)!;
    this.path.push(name);
    const children: PlanNode[] = [];
    for (const [index, step] of lane.steps.entries()) children.push(await this.step(step, lane, `steps.${index}`));
    this.path.pop();
    const plan: LanePlan = { kind: 'lane', key: `lane:${name}`, name, lane, children };
    this.planned.set(name, plan);
    return plan;
  }

  private async step(step: StepDef, lane: LaneDef, where: string): Promise<PlanNode> {
    if (typeof step === 'string') return this.named(step, lane, where);
    if ('parallel' in step) {
      const children: PlanNode[] = [];
      for (const [index, item] of step.parallel.entries()) {
        children.push(typeof item === 'string' ? await this.named(item, lane, `${where}.parallel.${index}`) : runPlan(item));
      }
      return { kind: 'parallel', name: step.name ?? `parallel: ${children.map((c) => c.name).join(', ')}`, when: step.when, children };
    }
    return runPlan(step);
  }

  private async named(name: string, lane: LaneDef, where: string): Promise<PlanNode> {
    const { lanes, project, resolvePlugin } = this.context;
    if (lanes.lanes.has(name)) return this.lane(name);
    const task = findTask(project, name);
    if (task) {
      const argv = taskArgv(task, []);
      return { kind: 'task', key: `task:${name}`, name, argv, command: shellQuote(argv) };
    }
    const external = resolvePlugin ? await resolvePlugin(name, { root: project.root }) : undefined;
    if (external) return { kind: 'plugin', key: `plugin:${name}`, name, step: external, command: external.describe };
    const tasks = listTasks(project).map((t) => t.name);
    const file = relative(project.root, lane.file) || lane.file;
    throw new RoostError('VALIDATION_ERROR',
      `${file}: lanes.${lane.name}.${where}: "${name}" is not a lane, a built-in task (${tasks.join(', ') || 'no stack detected'}) or a plugin command`);
  }
}

function runPlan(step: RunStepDef): RunPlan {
  const name = step.name ?? (step.run.length > 40 ? `${step.run.slice(0, 39)}…` : step.run);
  return { kind: 'run', name, command: step.run, when: step.when, timeout: step.timeout, retries: step.retries ?? 0 };
}
