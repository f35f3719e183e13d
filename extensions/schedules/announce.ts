// WebSocket: each update goes to the schedule's stream (`scheduleId`) and to the tenant-wide stream
// (`scheduleEvents`); the kernel delivers an event only to clients of its tenant.
import type { HostClient } from '../../sdk/host-client.js';
import type { Execution } from './executions.js';
import type { Schedule } from './store.js';

const TENANT_TOPIC = 'schedules.events';
/** A running execution was cancelled: the instance running it aborts it (a `broadcast` topic of this extension). */
export const CANCEL_TOPIC = 'schedules.cancel';

function both(host: HostClient, tenantId: string, scheduleId: string, message: Record<string, unknown>): void {
  host.emit(`schedule.${scheduleId}`, message, tenantId);
  host.emit(TENANT_TOPIC, message, tenantId);
}

export function announceExecution(host: HostClient, execution: Execution): void {
  both(host, execution.tenantId, execution.scheduleId, { type: 'schedule_execution', scheduleId: execution.scheduleId, executionId: execution.id, status: execution.status, execution });
  if (execution.status === 'awaiting_approval') {
    both(host, execution.tenantId, execution.scheduleId, { type: 'schedule_approval_request', scheduleId: execution.scheduleId, executionId: execution.id, action: execution.action, actions: execution.actions, dueAt: execution.dueAt, expiresAt: execution.expiresAt });
  }
}

export function announceSchedule(host: HostClient, schedule: Schedule, change: 'created' | 'updated' | 'paused' | 'resumed' | 'deleted'): void {
  both(host, schedule.tenantId, schedule.id, { type: 'schedule_updated', scheduleId: schedule.id, change, schedule });
}
