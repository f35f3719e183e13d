// `roost run [task] [-- args]`: runs a built-in task of the detected stack, or lists the tasks.
import { RoostError } from '../../protocol/errors.js';
import { usageError, type CommandResult } from '../output.js';
import type { CommandHandler } from '../tree.js';
import { detectProject, findTask, listTasks, taskArgv, type Project } from '../../lib/project/detect.js';
import { ROOT_MARKERS } from '../../lib/project/stacks.js';
import { palette } from '../colour.js';
import { didYouMean } from '../suggest.js';
import { shellQuote } from '../tasks/quote.js';
import { findFallback, onPath } from '../tasks/fallback.js';
import { runTask } from '../tasks/run-task.js';

export const handler: CommandHandler = async ({ args, options, rest }, ctx) => {
  const name = args[0];
  if (options.workspaces) {
    if (name === undefined) throw usageError('--workspaces needs a task: roost run <task> --workspaces');
    if (options.workspace !== undefined || options.stack !== undefined) throw usageError('--workspaces runs every package\'s script: it takes neither --workspace nor --stack');
    const { runAcrossWorkspaces } = await import('../tasks/workspace-run.js');
    return runAcrossWorkspaces(ctx.cwd, name, rest, Boolean(options.dryRun), ctx);
  }
  const cwd = typeof options.workspace === 'string' ? (await import('../tasks/workspace-run.js')).workspaceDir(ctx.cwd, options.workspace) : ctx.cwd;
  const project = detectProject(cwd);
  const stackId = typeof options.stack === 'string' ? options.stack : undefined;
  if (name === undefined) return listing(project);
  if (project.stacks.length === 0) throw noStack(project);
  const task = findTask(project, name, stackId);
  if (!task) {
    const available = listTasks(project).filter((t) => stackId === undefined || t.stack.id === stackId).map((t) => t.name);
    throw usageError(`unknown task "${name}"${stackId ? ` for stack ${stackId}` : ''}${didYouMean(name, available)}; available: ${available.join(', ') || 'none'}`);
  }
  const declared = taskArgv(task, rest);
  // A missing tool with a way around it: run that, and say so (a missing one without is the task's ENOENT).
  const fallback = onPath(declared[0]!, project.root) ? undefined : findFallback(project, task, declared, rest);
  const argv = fallback?.argv ?? declared;
  const command = shellQuote(argv);
  const ran = fallback?.task ?? task;
  const base = {
    task: name, stack: ran.stack.id, tool: ran.stack.tool, root: project.root, command, argv,
    ...(fallback ? { fallback: { declared: shellQuote(declared), reason: fallback.reason } } : {}),
  };
  if (fallback) ctx.log(`roost: ${fallback.reason}: running ${command} instead of ${shellQuote(declared)}`);
  if (options.dryRun) return { data: { ...base, dryRun: true }, text: command };
  ctx.log(palette(process.stderr).dim(`› ${command}`));
  const result = await runTask(argv, { cwd: project.root, capture: ctx.json });
  return { data: { ...base, dryRun: false, ...result }, exitCode: result.exitCode };
};

function listing(project: Project): CommandResult {
  const tasks = listTasks(project).map((t) => ({ name: t.name, stack: t.stack.id, command: shellQuote(t.command.argv) }));
  const stacks = project.stacks.map(({ id, tool, marker }) => ({ id, tool, marker }));
  const width = Math.max(0, ...tasks.map((t) => t.name.length));
  const text = stacks.length === 0
    ? `No stack detected in ${project.root} (looked for ${ROOT_MARKERS.filter((m) => m !== 'lanes.toml').join(', ')}).`
    : [`${project.root} (${stacks.map((s) => `${s.id}/${s.tool}`).join(', ')})`,
      ...tasks.map((t) => `  ${t.name.padEnd(width)}  ${t.command}`)].join('\n');
  return { data: { root: project.root, stacks, tasks }, text };
}

function noStack(project: Project): RoostError {
  return new RoostError('NO_STACK', `no project stack detected in ${project.root}; looked for ${ROOT_MARKERS.filter((m) => m !== 'lanes.toml').join(', ')}`);
}
