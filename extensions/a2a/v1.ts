// A2A 1.0 (https://a2a-protocol.org, the version @a2a-js/sdk 1.x speaks) beside 0.3: its operations
// (its shapes are v1-shapes.ts), for both of its bindings this server serves (JSON-RPC in jsonrpc.ts, HTTP+JSON in
// rest-v1.ts). 1.0 is 0.3's task model in protobuf's JSON form: no `kind`, a part is `{text}`, enums are
// SCREAMING_CASE (`TASK_STATE_COMPLETED`, `ROLE_AGENT`), SendMessage answers `{task}` and waits for the
// answer unless `configuration.returnImmediately`. The tasks are the same rows 0.3 serves.
import { validate } from '../../protocol/validate.js';
import { schema } from './context.js';
import { listTasks } from './list-tasks.js';
import { inlineConfig } from './push-configs.js';
import { RpcError, cancel, getTask, sendTask, type Endpoint } from './operations.js';
import type { TaskRow } from './tasks.js';
import { toV1Task } from './v1-shapes.js';

/** The versions a request may name in its A2A-Version header; none means 0.3, as the 1.0 spec says. */
export const SERVED_VERSIONS = ['0.3', '1.0'] as const;

const UNSUPPORTED: Record<string, [number, string]> = {
  GetExtendedAgentCard: [-32007, 'there is no extended card: the public card says everything'],
};

/** The 1.0 method's result, or undefined when `method` is no 1.0 method (the caller tries 0.3's). */
export async function dispatchV1(method: string, params: unknown, endpoint: Endpoint): Promise<{ result: unknown } | undefined> {
  if (method === 'SendMessage') return { result: await sendMessageV1(params, endpoint) };
  if (method === 'GetTask') {
    const p = validate<{ id: string; historyLength?: number }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    return { result: toV1Task(await getTask(endpoint, p.id), p.historyLength) };
  }
  if (method === 'CancelTask') {
    const p = validate<{ id: string }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    return { result: toV1Task(await cancel(endpoint, p.id)) };
  }
  if (method === 'ListTasks') return { result: await listTasks(params, endpoint) };
  const unsupported = UNSUPPORTED[method];
  if (unsupported) throw new RpcError(...unsupported);
  return undefined;
}

export interface SendParamsV1 {
  message: { messageId: string; contextId?: string; taskId?: string; parts: Array<{ text?: string; [other: string]: unknown }>; metadata?: { agent?: string } };
  configuration?: { returnImmediately?: boolean; historyLength?: number; taskPushNotificationConfig?: { url?: unknown } };
  metadata?: { agent?: string };
}

export async function sendMessageV1(params: unknown, endpoint: Endpoint): Promise<unknown> {
  const p = validate<SendParamsV1>(schema(endpoint.ctx, 'rpc-v1-send-message.json'), params, 'params');
  // 1.0 waits for the answer unless the client asks to return at once (0.3 had it the other way round).
  return { task: toV1Task(await sendRowV1(p, endpoint, p.configuration?.returnImmediately !== true), p.configuration?.historyLength) };
}

/** 1.0's SendMessage (its params checked) as a task row; `blocking` waits for the answer. */
export async function sendRowV1(p: SendParamsV1, endpoint: Endpoint, blocking: boolean): Promise<TaskRow> {
  const other = p.message.parts.find((part) => typeof part.text !== 'string');
  if (other) throw new RpcError(-32005, `Incompatible content types: only text parts are taken, not ${JSON.stringify(Object.keys(other)).slice(0, 80)}`);
  return sendTask(endpoint, {
    texts: p.message.parts.map((part) => part.text as string),
    ...(p.message.contextId ? { contextId: p.message.contextId } : {}),
    ...(p.message.taskId ? { taskId: p.message.taskId } : {}),
    agent: p.metadata?.agent ?? p.message.metadata?.agent,
    blocking,
    afterStart: await inlineConfig(p.configuration?.taskPushNotificationConfig, endpoint, '1.0'),
  });
}
