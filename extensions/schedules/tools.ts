// svc_manage_schedule: the schedules of the caller's tenant for agents (privileged: granted by the owner).
import { notFound, validationError } from '../../protocol/errors.js';
import type { AuthContext, ToolReply } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { scheduleSchemas } from './schemas.js';
import { createSchedule, deleteSchedule, mustGet, pausedFields, stores, triggerSchedule, updateSchedule, type ScheduleInput } from './service.js';
import { announceSchedule } from './announce.js';
import type { Scheduler } from './scheduler.js';

const text = (value: unknown): ToolReply => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

export const tools: Record<string, ToolHandler<Scheduler>> = {
  async svc_manage_schedule(args, caller, ctx, scheduler) {
    // An agent acts as an operator of its tenant: destructive runs without approval stay the owner's call.
    const auth: AuthContext = { tenantId: caller.tenantId, role: 'operator', actor: caller.agentId ? `agent:${caller.agentId}` : 'mcp' };
    const id = typeof args.schedule_id === 'string' ? args.schedule_id : undefined;
    const need = () => {
      if (!id) throw validationError(`schedule_id is required for action ${String(args.action)}`);
      return id;
    };
    const schedules = stores(ctx).schedules;
    switch (args.action) {
      case 'list':
        return text((await schedules.list(caller.tenantId, { limit: 200, offset: 0, ...(typeof args.agent_id === 'string' ? { agentId: args.agent_id } : {}) })).schedules);
      case 'get':
        return text(await mustGet(ctx, caller.tenantId, need()));
      case 'create':
        return text(await createSchedule(ctx, scheduler, auth, validate<ScheduleInput>(scheduleSchemas(ctx).create, args.schedule, 'schedule')));
      case 'update':
        return text(await updateSchedule(ctx, scheduler, auth, need(), validate<ScheduleInput>(scheduleSchemas(ctx).update, args.schedule, 'schedule')));
      case 'pause':
      case 'resume': {
        const schedule = await mustGet(ctx, caller.tenantId, need());
        const after = await schedules.update(caller.tenantId, schedule.id, pausedFields(schedule, args.action === 'pause', auth.actor, scheduler.clock.now()), scheduler.clock.now(), { resetFailures: args.action === 'resume' });
        if (!after) throw notFound(`schedule ${schedule.id}`);
        announceSchedule(ctx.host, after, args.action === 'pause' ? 'paused' : 'resumed');
        await scheduler.syncWake();
        return text(after);
      }
      case 'delete':
        await deleteSchedule(ctx, scheduler, caller.tenantId, need());
        ctx.host.audit('schedule.deleted_by_agent', `schedule:${id}`, { agentId: caller.agentId });
        return text({ deleted: id });
      case 'trigger':
        return text(await triggerSchedule(ctx, scheduler, auth, need()));
      default:
        return { content: [{ type: 'text', text: `unknown action ${String(args.action)}` }], isError: true };
    }
  },
};
