// `roost run <task> --workspace <package>` and `--workspaces`: a task of one package of a JavaScript
// workspace, or of every package that has it, one after the other in dependency order. The first
// failure stops the run and its exit code is roost's.
import { detectProject, findTask, taskArgv } from '../../lib/project/detect.js';
import { RoostError } from '../../protocol/errors.js';
import { palette } from '../colour.js';
import type { CliContext } from '../context.js';
import type { CommandResult } from '../output.js';
import { didYouMean } from '../suggest.js';
import { shellQuote } from './quote.js';
import { runTask } from './run-task.js';
import { findWorkspacePackage, workspacePackages, workspaceRoot, type WorkspacePackage } from './workspaces.js';

/** The folder `--workspace <package>` names: the package's own, where the task then runs as usual. */
export function workspaceDir(cwd: string, wanted: string): string {
  const { root, packages } = workspace(cwd);
  const pkg = findWorkspacePackage(root, packages, wanted);
  if (!pkg) throw new RoostError('USAGE', `no workspace package "${wanted}"${didYouMean(wanted, packages.map((p) => p.name))}; packages: ${packages.map((p) => p.name).join(', ')}`);
  return pkg.dir;
}

export async function runAcrossWorkspaces(cwd: string, task: string, rest: string[], dryRun: boolean, ctx: CliContext): Promise<CommandResult> {
  const { root, packages } = workspace(cwd);
  const plan = packages.flatMap((pkg) => {
    const found = pkg.scripts.includes(task) ? findTask(detectProject(pkg.dir), task, 'node') : undefined;
    return found ? [{ pkg, argv: taskArgv(found, rest) }] : [];
  });
  if (plan.length === 0) throw new RoostError('USAGE', `no workspace package has a "${task}" script; packages: ${packages.map((p) => p.name).join(', ')}`);
  const steps: Array<{ name: string; dir: string; command: string; exitCode?: number; durationMs?: number }> = [];
  let exitCode = 0;
  for (const { pkg, argv } of plan) {
    const command = shellQuote(argv);
    if (dryRun) {
      steps.push({ name: pkg.name, dir: pkg.dir, command });
      continue;
    }
    ctx.log(palette(process.stderr).dim(`› ${pkg.name}: ${command}`));
    const result = await runTask(argv, { cwd: pkg.dir, capture: ctx.json });
    steps.push({ name: pkg.name, dir: pkg.dir, command, exitCode: result.exitCode, durationMs: result.durationMs });
    if (result.exitCode !== 0) {
      exitCode = result.exitCode;
      ctx.log(`roost: ${task} failed in ${pkg.name} (exit ${exitCode}); ${plan.length - steps.length} package(s) not run`);
      break;
    }
  }
  const text = dryRun ? steps.map((s) => `${s.name}: ${s.command}`).join('\n') : undefined;
  return { data: { task, root, dryRun, workspaces: steps }, exitCode, ...(text !== undefined ? { text } : {}) };
}

function workspace(cwd: string): { root: string; packages: WorkspacePackage[] } {
  const root = workspaceRoot(detectProject(cwd).root);
  if (!root) throw new RoostError('USAGE', `no workspace here: no package.json "workspaces" or pnpm-workspace.yaml in ${cwd} or above`);
  return { root, packages: workspacePackages(root) };
}
