// What the REST routes and the MCP tool both do to schedules: build and check a schedule from input,
// pause, resume, delete, trigger. Everything happens within the caller's tenant.
import { conflict, forbidden, notFound, validationError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { resolveReferences, type ReferenceKind } from '../../sdk/references.js';
import { anyDestructive, checkAction, isDestructive, type Action } from './actions.js';
import { announceExecution, announceSchedule } from './announce.js';
import { approvalUntil, ExecutionStore, executionRow, runKeyOf, supersede, toExecution, type Execution } from './executions.js';
import { defaultApproval, recordDue } from './planner.js';
import type { Scheduler } from './scheduler.js';
import { ScheduleStore, type Approval, type MissedPolicy, type Schedule, type ScheduleFields, type ScheduleRow } from './store.js';
import { checkTiming, nextRun, type Timing } from './timing.js';

export interface ScheduleInput {
  name?: string;
  description?: string;
  agentId?: string;
  cron?: string | null;
  timezone?: string;
  intervalSeconds?: number | null;
  approval?: Approval;
  approvalWindowSeconds?: number | null;
  missedPolicy?: MissedPolicy;
  enabled?: boolean;
  /** One action: the same as `actions` with that one. */
  action?: Action;
  actions?: Action[];
}

/** The actions the input gives (either form), each named in errors as the client wrote it. */
function inputActions(input: ScheduleInput): Array<{ action: Action; field: string }> | undefined {
  if (input.action && input.actions) throw validationError('body: give action or actions, not both (action is a list of one)');
  if (input.actions) return input.actions.map((action, i) => ({ action, field: `body.actions.${i}` }));
  return input.action ? [{ action: input.action, field: 'body.action' }] : undefined;
}

export const stores = (ctx: ExtensionContext) => ({ schedules: new ScheduleStore(ctx.db, ctx.sql), executions: new ExecutionStore(ctx.db, ctx.sql) });

export async function mustGet(ctx: ExtensionContext, tenantId: string, id: string): Promise<Schedule> {
  const schedule = await stores(ctx).schedules.get(tenantId, id);
  if (!schedule) throw notFound(`schedule ${id}`);
  return schedule;
}

const sameTiming = (a: Timing, b: Timing) => a.cron === b.cron && a.timezone === b.timezone && a.intervalSeconds === b.intervalSeconds;

/** The stored fields of a schedule from input (merged over `existing` for an update), checked. */
function buildFields(scheduler: Scheduler, input: ScheduleInput, existing: Schedule | undefined, auth: AuthContext): ScheduleFields {
  const { config, clock } = scheduler;
  const now = clock.now();
  const given = inputActions(input);
  if (!given && !existing) throw validationError('body.actions is required (or body.action, a list of one)');
  for (const { action, field } of given ?? []) checkAction(action, field);
  const actions = given ? given.map((g) => g.action) : existing!.actions;
  const switchesToInterval = input.intervalSeconds !== undefined && input.intervalSeconds !== null;
  const switchesToCron = input.cron !== undefined && input.cron !== null;
  const timing: Timing = {
    cron: switchesToCron ? input.cron! : switchesToInterval ? null : (input.cron === null ? null : (existing?.cron ?? null)),
    timezone: input.timezone ?? existing?.timezone ?? 'UTC',
    intervalSeconds: switchesToInterval ? input.intervalSeconds! : switchesToCron ? null : (input.intervalSeconds === null ? null : (existing?.intervalSeconds ?? null)),
  };
  checkTiming(timing, config.minIntervalSeconds, now);
  const approval = input.approval ?? (given || !existing ? defaultApproval(actions) : existing.approval);
  if (anyDestructive(actions) && approval === 'auto' && input.approval === 'auto' && auth.role !== 'owner') {
    const which = actions.length === 1 ? '' : ` (actions.${actions.findIndex(isDestructive)})`;
    throw forbidden(`running a destructive action${which} (a work task, a DELETE route) without approval needs the owner role`);
  }
  const status = input.enabled === undefined ? (existing?.status ?? 'active') : input.enabled ? 'active' : 'paused';
  const keepNext = existing && existing.status === 'active' && status === 'active' && sameTiming(timing, existing) && existing.nextRunAt !== null;
  const nextRunAt = status !== 'active' ? null : keepNext ? existing.nextRunAt : (nextRun(timing, now, now)?.toISOString() ?? null);
  const actionAgent = actions.map((a) => (a.type === 'session' || a.type === 'work_task' ? a.agentId : undefined)).find(Boolean);
  return {
    agentId: input.agentId ?? actionAgent ?? existing?.agentId ?? null,
    name: input.name ?? existing!.name,
    description: input.description ?? existing?.description ?? '',
    ...timing,
    actions,
    approval,
    approvalWindowSeconds: input.approvalWindowSeconds !== undefined ? input.approvalWindowSeconds : (existing?.approvalWindowSeconds ?? null),
    missedPolicy: input.missedPolicy ?? existing?.missedPolicy ?? 'run_once',
    status,
    pausedReason: status === 'paused' ? (existing?.status === 'paused' ? existing.pausedReason : `paused by ${auth.actor}`) : null,
    nextRunAt,
  };
}

/** The agent, project, council and workflow the input names, resolved as its tenant (another tenant's is unknown). */
async function checkReferences(ctx: ExtensionContext, auth: AuthContext, input: ScheduleInput): Promise<void> {
  const named = (inputActions(input) ?? []).flatMap(({ action, field }): Array<[ReferenceKind, string | undefined, string]> => [
    ['agent', action.type === 'session' || action.type === 'work_task' ? action.agentId : undefined, `${field}.agentId`],
    ['project', action.type === 'session' || action.type === 'work_task' ? action.projectId : undefined, `${field}.projectId`],
    ['council', action.type === 'council' ? action.councilId : undefined, `${field}.councilId`],
    ['workflow', action.type === 'workflow' ? action.workflowId : undefined, `${field}.workflowId`],
  ]);
  await resolveReferences(ctx.host, { tenantId: auth.tenantId, public: true }, [['agent', input.agentId, 'body.agentId'], ...named]);
}

export async function createSchedule(ctx: ExtensionContext, scheduler: Scheduler, auth: AuthContext, input: ScheduleInput): Promise<Schedule> {
  const fields = buildFields(scheduler, input, undefined, auth);
  await checkReferences(ctx, auth, input);
  const schedule = await stores(ctx).schedules.create(auth.tenantId, auth.actor, fields, scheduler.clock.now());
  announceSchedule(ctx.host, schedule, 'created');
  await scheduler.syncWake();
  return schedule;
}

/**
 * The failure count starts again on a resume, or when what runs or when it runs changed: a rename (or
 * any other edit) of a failing schedule does not save it from its pause after failureLimit failures.
 */
function resetsFailures(existing: Schedule, next: ScheduleFields): boolean {
  const resumed = existing.status === 'paused' && next.status === 'active';
  return resumed || JSON.stringify(existing.actions) !== JSON.stringify(next.actions) || !sameTiming(existing, next);
}

export async function updateSchedule(ctx: ExtensionContext, scheduler: Scheduler, auth: AuthContext, id: string, input: ScheduleInput): Promise<Schedule> {
  const existing = await mustGet(ctx, auth.tenantId, id);
  const fields = buildFields(scheduler, input, existing, auth);
  await checkReferences(ctx, auth, input);
  const schedule = await stores(ctx).schedules.update(auth.tenantId, id, fields, scheduler.clock.now(), { resetFailures: resetsFailures(existing, fields) });
  if (!schedule) throw notFound(`schedule ${id}`);
  announceSchedule(ctx.host, schedule, 'updated');
  await scheduler.syncWake();
  return schedule;
}

/** Pause or resume: a resumed schedule runs next at its next time from now (what a pause skipped is not made up). */
export function pausedFields(schedule: Schedule, pause: boolean, actor: string, now: Date): ScheduleFields {
  return {
    ...schedule,
    status: pause ? 'paused' : 'active',
    pausedReason: pause ? `paused by ${actor}` : null,
    nextRunAt: pause ? null : (nextRun(schedule, now, now)?.toISOString() ?? null),
  };
}

export async function deleteSchedule(ctx: ExtensionContext, scheduler: Scheduler, tenantId: string, id: string): Promise<void> {
  const schedule = await mustGet(ctx, tenantId, id);
  await stores(ctx).schedules.remove(tenantId, id);
  announceSchedule(ctx.host, schedule, 'deleted');
  await scheduler.syncWake();
}

/**
 * Runs a schedule now. When it is due (its next run has come and the tick has not recorded it yet) the
 * trigger records that very run — the same run_key the tick would use, so only one of them can; else a
 * manual run of its own. An owner's trigger approves the run it asks for; anyone else's waits for
 * approval when the schedule says so.
 */
export async function triggerSchedule(ctx: ExtensionContext, scheduler: Scheduler, auth: AuthContext, id: string): Promise<Execution> {
  const { clock, config } = scheduler;
  const schedule = await mustGet(ctx, auth.tenantId, id);
  const now = clock.now();
  const due = schedule.status === 'active' && schedule.nextRunAt !== null && Date.parse(schedule.nextRunAt) <= now.getTime();
  const { key, superseded } = await ctx.db.transaction(async (trx) => {
    if (due) {
      const row = await trx<ScheduleRow>('schedules').where({ id, tenant_id: auth.tenantId }).first();
      const recorded = row && row.next_run_at === schedule.nextRunAt ? await recordDue(trx, [row], now, config) : { inserted: [], superseded: [] };
      if (recorded.inserted.length === 0) throw conflict(`the run of schedule ${id} due at ${schedule.nextRunAt} was already recorded`);
      return { key: recorded.inserted[recorded.inserted.length - 1]!.run_key, superseded: recorded.superseded };
    }
    const until = approvalUntil(schedule, config.approvalWindowSeconds, now);
    const row = executionRow({ tenantId: auth.tenantId, scheduleId: id, dueAt: now, trigger: 'manual', actions: schedule.actions, approvalUntil: until, runKey: `${runKeyOf(id, now)}#manual` }, now);
    const inserted = await trx('schedule_executions').insert(row).onConflict('run_key').ignore().returning('id');
    if (inserted.length === 0) throw conflict(`schedule ${id} was already triggered at ${now.toISOString()}`);
    return { key: row.run_key, superseded: until ? await supersede(trx, [row], now) : [] };
  });
  for (const row of superseded) announceExecution(ctx.host, toExecution(row));
  const { executions } = stores(ctx);
  let execution = (await executions.byKey(key))!;
  if (execution.status === 'awaiting_approval' && auth.role === 'owner') {
    execution = (await executions.transition(execution.id, ['awaiting_approval'], 'queued', { resolved_by: auth.actor, expires_at: null }, now)) ?? execution;
  }
  announceExecution(ctx.host, execution);
  await scheduler.syncWake();
  scheduler.kick();
  return execution;
}
