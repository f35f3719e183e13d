// What the agent of a work task is told, and the pull request's description.
import type { TaskRow, ValidationResult } from './store.js';

export function taskPrompt(row: TaskRow, protectedFiles: string[]): string {
  return [
    `You are working on a task in a git worktree on branch ${row.branch} of repository ${row.repo_slug}.`,
    '',
    `Task: ${row.description}`,
    '',
    'Make the change in the files of your working folder. Do not commit, push or open a pull request: once you answer,',
    "the service validates the change with the project's own lint, build and test commands, then commits, pushes and",
    `opens the pull request. Never change protected files (${protectedFiles.join(', ')}): a change to one fails the task.`,
    'When you are done, answer with a short summary of what you changed and why.',
  ].join('\n');
}

export function feedbackPrompt(results: ValidationResult[], iteration: number, max: number): string {
  const failed = results.filter((r) => !r.ok);
  return [
    `Validation failed (iteration ${iteration} of ${max}). Fix the problems below, then answer with a short summary.`,
    ...failed.map((r) => `\n$ ${r.command} (exit ${r.exitCode})\n${r.output.trim()}`),
  ].join('\n');
}

export function resumePrompt(row: TaskRow): string {
  return `The service restarted while you worked on the task "${row.description}". Check the state of your working folder, finish the task, and answer with a short summary.`;
}

export function pullBody(row: TaskRow, results: ValidationResult[]): string {
  const table = results.length === 0
    ? 'No validation command was detected in this project.'
    : ['| check | command | result |', '|---|---|---|', ...results.map((r) => `| ${r.task} | \`${r.command}\` | ${r.ok ? 'passed' : `failed (exit ${r.exitCode})`} |`)].join('\n');
  return [
    '## Summary', '', (row.summary ?? '').trim() || row.description, '',
    '## Task', '', row.description, '',
    `## Validation (iteration ${row.iteration})`, '', table, '',
    `Opened by Roost work task \`${row.id}\`.`,
  ].join('\n');
}
