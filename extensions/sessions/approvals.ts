// Deciding each tool use: the policy answers most at once; the rest either ask the session's
// subscribers (approval_request → approval_response, denied after a timeout and put on the escalation
// queue) or, in operational mode `queued`, wait on the escalation queue until an owner resolves them.
import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';
import type { Escalation, EscalationStore, NewEscalation } from './escalations.js';
import type { PermissionMode } from './lookups.js';
import { decide, type OperationalMode } from './policy.js';
import type { ApprovalAnswer, ApprovalAsk } from './runner/protocol.js';

export interface ApprovalContext {
  tenantId: string;
  sessionId: string;
  agentId: string;
  permissionMode: PermissionMode;
  timeoutMs: number;
  /** Sends a message to whoever watches the session (subscribers, a chat client). */
  announce(message: { type: string } & Record<string, unknown>): void;
  /** Records the decision in the session's stream. */
  record(decision: Record<string, unknown>): void;
}

interface Waiter {
  tenantId: string;
  sessionId: string;
  settle(answer: ApprovalAnswer & { by?: string }): void;
}

type Tool = ApprovalAsk['tool'];

export class ApprovalBroker {
  private readonly asking = new Map<string, Waiter>();
  private readonly queued = new Map<string, Waiter>();
  /** An owner allowed, after the fact, a tool use that had already been denied. */
  onLateGrant: (entry: Escalation) => void = () => undefined;

  constructor(private readonly store: EscalationStore, private readonly host: HostClient, private mode: OperationalMode) {
    this.reportDepth();
  }

  /** The escalation queue's depth, for the kernel's metrics (sent only when it moved). */
  private reportDepth(): void {
    void this.store.pendingCount().then((n) => this.host.queueDepth('escalations', n), () => undefined);
  }

  get operationalMode(): OperationalMode {
    return this.mode;
  }

  setMode(mode: OperationalMode): void {
    this.mode = mode;
    if (mode !== 'paused') return;
    for (const waiter of [...this.asking.values(), ...this.queued.values()]) {
      waiter.settle({ allowed: false, reason: 'the server switched to operational mode "paused"' });
    }
  }

  async decide(ctx: ApprovalContext, tool: Tool): Promise<ApprovalAnswer> {
    const verdict = decide(this.mode, ctx.permissionMode, tool.kind);
    let answer: ApprovalAnswer & { requestId?: string; by?: string };
    if (verdict.kind === 'allow') answer = { allowed: true, by: 'policy' };
    else if (verdict.kind === 'deny') answer = { allowed: false, reason: verdict.reason, by: 'policy' };
    else if (await this.store.takeGrant(ctx.sessionId, tool.name, tool.input)) answer = { allowed: true, by: 'escalation grant' };
    else answer = verdict.kind === 'ask' ? await this.ask(ctx, tool) : await this.enqueue(ctx, tool);
    ctx.record({ toolUseId: tool.id, toolName: tool.name, behavior: answer.allowed ? 'allow' : 'deny', reason: answer.reason ?? null, by: answer.by ?? null, requestId: answer.requestId ?? null });
    return { allowed: answer.allowed, ...(answer.reason ? { reason: answer.reason } : {}) };
  }

  /** An approval_response from a WebSocket client of the same tenant; false when nothing waits on that id. */
  async respond(tenantId: string, requestId: string, behavior: 'allow' | 'deny', actor: string): Promise<boolean> {
    const waiter = this.asking.get(requestId);
    if (waiter && waiter.tenantId === tenantId) {
      this.host.audit(`approval.${behavior}`, `session:${waiter.sessionId}`, { requestId, actor });
      waiter.settle(behavior === 'allow' ? { allowed: true, by: actor } : { allowed: false, reason: `denied by ${actor}`, by: actor });
      return true;
    }
    const queued = this.queued.get(requestId);
    if (queued && queued.tenantId === tenantId) {
      await this.resolveEscalation(tenantId, requestId, behavior, actor);
      return true;
    }
    return false;
  }

  async resolveEscalation(tenantId: string, id: string, behavior: 'allow' | 'deny', actor: string): Promise<Escalation> {
    const entry = await this.store.get(tenantId, id);
    if (!entry) throw notFound(`escalation ${id}`);
    if (!(await this.store.resolve(tenantId, id, behavior === 'allow' ? 'allowed' : 'denied', actor))) {
      throw conflict(`escalation ${id} is already ${entry.status}`);
    }
    this.host.audit('approval.escalation_resolved', `escalation:${id}`, { behavior, actor, sessionId: entry.sessionId, toolName: entry.toolName, reason: entry.reason });
    this.reportDepth();
    const resolved = (await this.store.get(tenantId, id))!;
    const waiter = this.queued.get(id);
    if (waiter) waiter.settle(behavior === 'allow' ? { allowed: true, by: actor } : { allowed: false, reason: `denied on the escalation queue by ${actor}`, by: actor });
    else if (behavior === 'allow') this.onLateGrant(resolved);
    return resolved;
  }

  /** The session is ending: whatever it waits for is denied. */
  cancelSession(sessionId: string, reason: string): void {
    for (const waiter of [...this.asking.values(), ...this.queued.values()]) {
      if (waiter.sessionId === sessionId) waiter.settle({ allowed: false, reason });
    }
  }

  private ask(ctx: ApprovalContext, tool: Tool): Promise<ApprovalAnswer & { requestId: string; by?: string }> {
    const id = randomUUID();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (answer: ApprovalAnswer & { by?: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.asking.delete(id);
        resolve({ ...answer, requestId: id });
      };
      const timer = setTimeout(() => {
        this.asking.delete(id); // too late to answer: from now on it is the escalation queue's
        this.escalate(ctx, tool, 'timeout').then(
          (entry) => finish({ allowed: false, reason: `nobody answered within ${ctx.timeoutMs / 1000} s; the request waits on the escalation queue as ${entry.id}`, by: 'timeout' }),
          (err: Error) => finish({ allowed: false, reason: `nobody answered in time (and queueing failed: ${err.message})`, by: 'timeout' }),
        );
      }, ctx.timeoutMs);
      this.asking.set(id, { tenantId: ctx.tenantId, sessionId: ctx.sessionId, settle: finish });
      ctx.announce({ type: 'approval_request', sessionId: ctx.sessionId, request: { id, toolName: tool.name, input: tool.input, kind: tool.kind, timeoutSeconds: ctx.timeoutMs / 1000 } });
    });
  }

  private async enqueue(ctx: ApprovalContext, tool: Tool): Promise<ApprovalAnswer & { requestId: string; by: string }> {
    const entry = await this.escalate(ctx, tool, 'queued');
    const answer = await new Promise<ApprovalAnswer & { by?: string }>((resolve) => {
      this.queued.set(entry.id, {
        tenantId: ctx.tenantId,
        sessionId: ctx.sessionId,
        settle: (a) => {
          if (this.queued.delete(entry.id)) resolve(a);
        },
      });
      ctx.announce({ type: 'approval_request', sessionId: ctx.sessionId, request: { id: entry.id, toolName: tool.name, input: tool.input, kind: tool.kind, queued: true } });
    });
    return { ...answer, requestId: entry.id, by: answer.by ?? 'escalation queue' };
  }

  private async escalate(ctx: ApprovalContext, tool: Tool, reason: NewEscalation['reason']): Promise<Escalation> {
    const entry = await this.store.add({ tenantId: ctx.tenantId, sessionId: ctx.sessionId, agentId: ctx.agentId, toolName: tool.name, toolKind: tool.kind, input: tool.input, reason });
    this.reportDepth();
    return entry;
  }
}
