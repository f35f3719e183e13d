// Sitting one exam: for each task a workspace folder with its files, a project over it, a real session
// of the agent that answers the task's prompts (through the sessions routes), then the grading, and the
// folder, project and session cleaned away. Tasks run one after the other, as the tenant.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { askAgent } from '../sessions/contract-reply.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { scratchRoot } from '../../sdk/workspace-roots.js';
import type { Task, ToolCall } from './catalogue.js';
import type { TaskResult } from './store.js';
import { ProjectsClient } from '../projects/contract.js';
import { sessionsClient } from '../sessions/contract.js';

/** How long one prompt of a task may take to be answered. */
const ANSWER_TIMEOUT_MS = 5 * 60_000;

export async function sit(ctx: ExtensionContext, tenantId: string, agent: { id: string; permissionMode: string }, task: Task, available: { memory: boolean }): Promise<TaskResult> {
  const started = Date.now();
  const base = { taskId: task.id, category: task.category, answers: [] as string[], toolCalls: [] as ToolCall[], sessionId: null as string | null };
  const skip = task.skipIf?.(agent, available);
  if (skip) return { ...base, status: 'skipped', checks: [], reason: skip, durationMs: 0 };
  const as: CallAs = { tenantId };
  const dir = join(scratchRoot(ctx, tenantId), `roost-exam-${randomUUID().slice(0, 8)}`);
  let projectId: string | undefined;
  try {
    await mkdir(dir, { recursive: true });
    for (const [name, content] of Object.entries(task.files)) await writeFile(join(dir, name), content);
    const project = await new ProjectsClient(ctx.host).create({ name: `exam ${task.id} ${dir.slice(-8)}`, workingDir: dir }, as);
    if (project.status !== 201 || !project.body) throw new Error(`the exam's project could not be made: ${project.body?.error ?? project.status}`);
    projectId = project.body.id;
    for (const prompt of task.prompts) {
      const reply = await askAgent(ctx.host, as, {
        agentId: agent.id, prompt, timeoutMs: ANSWER_TIMEOUT_MS,
        ...(base.sessionId ? { sessionId: base.sessionId } : { session: { projectId, name: `exam: ${task.id}`, source: 'web' } }),
      });
      base.sessionId = reply.sessionId;
      base.answers.push(reply.text);
    }
    base.toolCalls = await toolCallsOf(ctx, as, base.sessionId!);
    const checks = await task.grade({ ...base, readFile: (name) => readFile(join(dir, name), 'utf8').catch(() => null) });
    return { ...base, status: checks.every((c) => c.passed) ? 'passed' : 'failed', checks, reason: null, durationMs: Date.now() - started };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ...base, status: 'failed', checks: [{ name: 'the session answered', passed: false, detail: why }], reason: why, durationMs: Date.now() - started };
  } finally {
    if (base.sessionId) await sessionsClient(ctx.host, as).remove(base.sessionId).catch(() => undefined);
    if (projectId) await new ProjectsClient(ctx.host).remove(projectId, as).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

type StoredEvent = { seq: number; type: string; id?: string; name?: string; input?: Record<string, unknown>; isError?: boolean };

/** The tool calls the session made, from its stored events, each with whether it was refused or failed. */
async function toolCallsOf(ctx: ExtensionContext, as: CallAs, sessionId: string): Promise<ToolCall[]> {
  const calls: ToolCall[] = [];
  const byUseId = new Map<string, ToolCall>();
  for (let after = 0; ;) {
    const reply = await sessionsClient(ctx.host, as).events(sessionId, { after, limit: 1000 });
    const events = (reply.body?.events ?? []) as unknown as StoredEvent[];
    for (const e of events) {
      if (e.type === 'tool_use') {
        const call: ToolCall = { name: String(e.name), input: e.input ?? {}, isError: null };
        calls.push(call);
        if (e.id) byUseId.set(e.id, call);
      } else if (e.type === 'tool_result' && e.id) {
        const call = byUseId.get(e.id);
        if (call) call.isError = e.isError === true;
      }
    }
    if (events.length < 1000) return calls;
    after = events.at(-1)!.seq;
  }
}
