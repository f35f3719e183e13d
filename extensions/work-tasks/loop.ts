// One work task from its lock to its pull request. Each phase stores where it got to before it acts,
// and each is safe to run again, so a task whose runner died (kill -9, a restart) resumes where it was.
import { basename, join, relative } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { deliverPrompt, waitForReply } from '../sessions/contract-reply.js';
import { MAX_ITERATIONS } from './config.js';
import { isBlocked, openPull } from './vcshost.js';
import { record } from './create.js';
import type { Engine } from './engine.js';
import { addWorktree, changedFiles, commitAll, currentBranch, originUrl, push, repoSlug, WORKTREES } from './git.js';
import { pullTitle } from './naming.js';
import { TaskEnded } from './task-ended.js';
import { taskPrompt, feedbackPrompt, resumePrompt, pullBody } from './prompts.js';
import type { TaskRow, ValidationResult } from './store.js';
import { validate } from './validate.js';
import { ProjectsClient, projectPath } from '../projects/contract.js';

export async function runTask(engine: Engine, id: string, signal: AbortSignal): Promise<void> {
  let row = (await engine.store.byId(id))!;
  if (row.status === 'queued' || row.status === 'branching') row = await prepare(engine, row);
  for (;;) {
    if (signal.aborted) throw new TaskEnded();
    if (row.status === 'running') row = await agentTurn(engine, row, signal);
    else if (row.status === 'validating') row = await check(engine, row, signal);
    else if (row.status === 'pushing') return publish(engine, row);
    else return; // ended
  }
}

async function prepare(engine: Engine, queued: TaskRow): Promise<TaskRow> {
  const { host } = engine.ctx;
  const as = { tenantId: queued.tenant_id };
  const row = queued.status === 'queued' ? await engine.advance(queued, 'branching', {}, 'repository locked; creating the worktree') : queued;
  const remote = await originUrl(row.repo_dir);
  const slug = remote ? repoSlug(remote) : undefined;
  if (!slug) throw new RoostError('VALIDATION_ERROR', `the repository ${row.repo_dir} has no "origin" remote naming a code-host repository`);
  if (await isBlocked(host, as, slug)) throw new RoostError('FORBIDDEN', `repository ${slug} is on the blocklist: agents may not touch it`);
  const base = row.base_branch ?? (await currentBranch(row.repo_dir));
  const worktree = join(row.repo_dir, WORKTREES, row.id);
  await engine.store.update(row.id, { repo_slug: slug, base_branch: base, worktree_dir: worktree });
  await addWorktree(row.repo_dir, worktree, row.branch!, base);
  const project = await sourceProject(engine, row);
  // Sessions run in a project's folder: the task's own project is its worktree (removed when it ends).
  const workDir = join(worktree, relative(row.repo_dir, project.workingDir));
  const made = row.work_project_id ? undefined : await new ProjectsClient(host).create({
    name: `work task ${row.id.slice(0, 8)}`, description: `Worktree of work task ${row.id}`, workingDir: workDir, env_vars: project.env_vars,
  }, as);
  if (made && (made.status !== 201 || !made.body)) throw new RoostError('UPSTREAM_ERROR', `creating the task's project failed: ${String(made.body?.error ?? made.status)}`);
  const workProject = made ? String(made.body!.id) : row.work_project_id;
  return engine.advance(row, 'running', { work_project_id: workProject, iteration: Math.max(1, row.iteration) }, `worktree on branch ${row.branch} (from ${base}); starting the agent`);
}

async function sourceProject(engine: Engine, row: TaskRow): Promise<{ workingDir: string; env_vars: Record<string, string> }> {
  const project = await record(engine, { tenantId: row.tenant_id }, projectPath(row.project_id), `project ${row.project_id}`);
  return { workingDir: String(project.workingDir), env_vars: (project.env_vars as Record<string, string>) ?? {} };
}

/** One turn of the agent: the task (or the validation failures) sent, its answer awaited. */
async function agentTurn(engine: Engine, row: TaskRow, signal: AbortSignal): Promise<TaskRow> {
  const { host } = engine.ctx;
  const as = { tenantId: row.tenant_id };
  const timeoutMs = engine.config.sessionTimeoutMinutes * 60_000;
  let text: string;
  if (row.session_id && row.session_after !== null) {
    // The prompt went out before a restart: wait for its answer, or, if the session stopped, ask again.
    try {
      text = (await waitForReply(host, as, row.session_id, row.session_after, { timeoutMs, signal })).text;
    } catch (err) {
      if (signal.aborted) throw new TaskEnded();
      host.log('info', `work task ${row.id}: session ${row.session_id} did not answer after the restart (${(err as Error).message}); asking again`);
      text = await ask(engine, row, resumePrompt(row), signal, timeoutMs);
    }
  } else {
    const prompt = row.iteration <= 1 && !row.session_id ? taskPrompt(row, engine.config.protectedFiles) : feedbackPrompt(parse(row.validation), row.iteration - 1, MAX_ITERATIONS);
    text = await ask(engine, row, prompt, signal, timeoutMs);
  }
  return engine.advance(row, 'validating', { session_after: null, summary: text.slice(0, 20_000) }, `the agent answered (iteration ${row.iteration}); validating`);
}

async function ask(engine: Engine, row: TaskRow, prompt: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const { host } = engine.ctx;
  const as = { tenantId: row.tenant_id };
  const session = { projectId: row.work_project_id, source: 'agent', name: `work task: ${row.description.slice(0, 150)}`, timeoutMinutes: engine.config.sessionTimeoutMinutes };
  let sent;
  try {
    sent = await deliverPrompt(host, as, { agentId: row.agent_id, prompt, ...(row.session_id ? { sessionId: row.session_id } : { session }) });
  } catch (err) {
    if (!row.session_id) throw err;
    // The session cannot take another turn (stopped, deleted): a new one carries the task on.
    sent = await deliverPrompt(host, as, { agentId: row.agent_id, prompt: `${taskPrompt(row, engine.config.protectedFiles)}\n\n${prompt}`, session });
  }
  if (!(await engine.store.transition(row.id, row.status, { session_id: sent.sessionId, session_after: sent.after }))) throw new TaskEnded();
  if (sent.sessionId !== row.session_id) await engine.announce({ ...row, session_id: sent.sessionId }, `session ${sent.sessionId} started`);
  return (await waitForReply(host, as, sent.sessionId, sent.after, { timeoutMs, signal })).text;
}

async function check(engine: Engine, row: TaskRow, signal: AbortSignal): Promise<TaskRow> {
  const changed = await changedFiles(row.worktree_dir!, row.base_branch!);
  const touched = changed.filter((path) => engine.config.protectedFiles.includes(basename(path).toLowerCase()));
  if (touched.length > 0) {
    const reason = `the change touches protected files (${touched.join(', ')}); nothing was pushed`;
    await engine.finish(row, 'failed', { failure_reason: reason }, reason);
    throw new TaskEnded();
  }
  if (changed.length === 0) {
    const reason = 'the agent changed no file';
    await engine.finish(row, 'failed', { failure_reason: reason }, reason);
    throw new TaskEnded();
  }
  const project = await sourceProject(engine, row);
  const results = await validate(row.worktree_dir!, project.env_vars, engine.config.validationTimeoutMs, signal);
  if (signal.aborted) throw new TaskEnded();
  const validation = JSON.stringify(results);
  const failed = results.filter((r) => !r.ok).map((r) => r.task);
  if (failed.length === 0) {
    const ran = results.map((r) => r.task).join(', ') || 'no validation command detected';
    return engine.advance(row, 'pushing', { validation }, `validation passed (${ran}); committing and pushing`);
  }
  if (row.iteration < MAX_ITERATIONS) {
    return engine.advance(row, 'running', { validation, iteration: row.iteration + 1 }, `validation failed (${failed.join(', ')}); iteration ${row.iteration + 1} of ${MAX_ITERATIONS}`);
  }
  const reason = `validation still failed after ${MAX_ITERATIONS} iterations (${failed.join(', ')})`;
  await engine.finish(row, 'failed', { validation, failure_reason: reason }, reason);
  throw new TaskEnded();
}

async function publish(engine: Engine, row: TaskRow): Promise<void> {
  const as = { tenantId: row.tenant_id };
  const title = pullTitle(row.description);
  await commitAll(row.worktree_dir!, `${title}\n\n${row.description}\n\nWork task ${row.id}`);
  await push(row.worktree_dir!, row.branch!);
  const pull = await openPull(engine.ctx.host, as, { repo: row.repo_slug!, title, body: pullBody(row, parse(row.validation)), head: row.branch!, base: row.base_branch! });
  await engine.finish(row, 'completed', { pr_url: pull.url, pr_number: pull.number, pr_state: pull.state }, `pull request opened: ${pull.url}`);
}

function parse(validation: string | null): ValidationResult[] {
  return validation ? (JSON.parse(validation) as ValidationResult[]) : [];
}
