// Streaming a task (A2A 0.3's message/stream and tasks/resubscribe, 1.0's SendStreamingMessage and
// SubscribeToTask, over JSON-RPC and HTTP+JSON): server-sent events, in this order — the task as it
// is, a status update when it works, then, once its session has answered, an artifact update carrying
// the reply and the final status update (completed, failed or canceled). The reply comes whole when
// the task ends: the session's deltas include turns that only led to tool uses, which are no part of
// the task's answer. A client that goes away stops the wait within one poll (no subscription is held).
import type { ExtensionContext, StreamedReply } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import type { Endpoint } from './operations.js';
import { RpcError } from './operations.js';
import { currentTask } from './run-tasks.js';
import { FINAL_STATES, TaskStore, type TaskRow } from './tasks.js';

/** How long one wait for the session's answer lasts before the stream looks at its client again. */
const POLL_MS = 5_000;

/** One event of a task's stream, before a version gives it its shape. */
export type TaskEvent =
  | { kind: 'task'; row: TaskRow }
  | { kind: 'status'; row: TaskRow; final: boolean }
  | { kind: 'artifact'; row: TaskRow };

/** The task's events from `row` on, until it ends or `signal` aborts; `as` reads the session. */
export async function* taskEvents(ctx: ExtensionContext, tenantId: string, as: CallAs, row: TaskRow, signal: AbortSignal): AsyncGenerator<TaskEvent> {
  yield { kind: 'task', row };
  let task = row;
  let working = task.state === 'working';
  if (working) yield { kind: 'status', row: task, final: false };
  while (!FINAL_STATES.has(task.state)) {
    if (signal.aborted) return;
    const next = await currentTask(ctx, tenantId, as, task, POLL_MS);
    // Canceled elsewhere while the session still ran: the stored row says so.
    task = FINAL_STATES.has(next.state) ? next : ((await new TaskStore(ctx.db).get(tenantId, task.id)) ?? next);
    if (task.state === 'working' && !working) {
      working = true;
      yield { kind: 'status', row: task, final: false };
    }
  }
  if (task.state === 'completed' && task.result !== null) yield { kind: 'artifact', row: task };
  yield { kind: 'status', row: task, final: true };
}

/** A subscription to a task that ended has nothing to follow (A2A 1.0: UnsupportedOperationError). */
export function mustBeLive(row: TaskRow): TaskRow {
  if (FINAL_STATES.has(row.state)) throw new RpcError(-32004, `task ${row.id} is ${row.state}: there is nothing to subscribe to; read it with GetTask (tasks/get)`);
  return row;
}

/** The SSE reply: each event's `data` as `encode` shapes it; an error midway is one last event. */
export function sseReply(endpoint: Endpoint, row: TaskRow, encode: (event: TaskEvent) => unknown, encodeError: (err: unknown) => { event?: string; data: unknown }): StreamedReply {
  const { ctx, req } = endpoint;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-store', 'x-accel-buffering': 'no' },
    async produce(write, signal) {
      const send = (data: unknown, event?: string) => write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
      try {
        for await (const event of taskEvents(ctx, req.auth.tenantId, { requestId: req.id }, row, signal)) send(encode(event));
      } catch (err) {
        const error = encodeError(err);
        send(error.data, error.event);
      }
    },
  };
}
