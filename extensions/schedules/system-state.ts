// What would stop an execution now, evaluated live for the caller's tenant: the operational mode
// (`paused` holds every queued execution), the credits of the agents its active schedules use (through
// the credits routes), and the providers (the sessions extension, the local model runner).
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';
import { CreditsClient } from '../credits/contract.js';
import { LocalModelClient } from '../localmodel/contract.js';
import type { Scheduler } from './scheduler.js';
import { SESSIONS_ROUTES } from '../sessions/contract.js';

interface Probe {
  status: number;
  body: Record<string, unknown> | null;
}

async function probeCall(call: () => Promise<{ status: number; body: unknown }>): Promise<Probe> {
  try {
    return (await call()) as Probe;
  } catch (err) {
    return { status: 503, body: { error: (err as Error).message } };
  }
}

const unavailable = (p: Probe) => p.status === 404 && p.body?.code === 'ROUTE_NOT_FOUND';
const errorOf = (p: Probe) => (typeof p.body?.error === 'string' ? p.body.error : `status ${p.status}`);

export async function systemState(ctx: ExtensionContext, scheduler: Scheduler, requestId: string, tenantId: string): Promise<Record<string, unknown>> {
  const as: CallAs = { requestId };
  const blockers: string[] = [];
  const mode = scheduler.operationalMode;
  if (mode === 'paused') blockers.push('the operational mode is paused: queued executions wait until it is normal again');

  const agents = (await ctx.db('schedules').where({ tenant_id: tenantId, status: 'active' }).whereNotNull('agent_id').distinct('agent_id').limit(100)) as Array<{ agent_id: string }>;
  const credits = await Promise.all(agents.map(async ({ agent_id: agentId }) => {
    const p = await probeCall(() => new CreditsClient(ctx.host).balance(agentId, as));
    if (unavailable(p)) return { agentId, available: false, reason: 'the credits extension is not loaded' };
    if (p.status !== 200) return { agentId, available: false, reason: errorOf(p) };
    const balance = Number(p.body!.balance ?? 0);
    const reserved = Number(p.body!.reserved ?? 0);
    const ok = balance - reserved > 0;
    if (!ok) blockers.push(`agent ${agentId} has no free credits (balance ${balance}, reserved ${reserved} microUnits): its sessions would pause`);
    return { agentId, available: true, balance, reserved, ok };
  }));

  const sessions = await probeCall(() => callRoute(ctx.host, SESSIONS_ROUTES.list, { query: { limit: 1 } }, as));
  const sessionsUp = sessions.status === 200;
  if (!sessionsUp) blockers.push(unavailable(sessions) ? 'the sessions extension is not loaded: session actions would fail' : `the sessions extension answers ${errorOf(sessions)}`);
  const local = await probeCall(() => new LocalModelClient(ctx.host).status(as));
  const providers = {
    sessions: { available: sessionsUp, ...(sessionsUp ? {} : { reason: errorOf(sessions) }) },
    localModel: unavailable(local) ? { available: false, reason: 'the localmodel extension is not loaded' } : local.status === 200 ? { available: true, status: local.body } : { available: false, reason: errorOf(local) },
  };

  const running = await ctx.db('schedule_executions').where({ status: 'running' }).count<Array<{ n: number | string }>>({ n: '*' });
  const slots = scheduler.config.maxConcurrent - Number(running[0]?.n ?? 0);
  if (slots <= 0) blockers.push(`all ${scheduler.config.maxConcurrent} execution slots are busy: new executions wait`);
  return { evaluatedAt: scheduler.clock.now().toISOString(), canRun: blockers.length === 0, blockers, operationalMode: mode, credits, providers, slots: { max: scheduler.config.maxConcurrent, free: Math.max(0, slots) } };
}
