// A2A 1.0's ListTasks (JSON-RPC `ListTasks`, HTTP+JSON `GET <base>/tasks`): the caller's tenant's tasks —
// of the endpoint's agent on /a2a/agents/:id — newest change first, filtered by contextId, status and
// statusTimestampAfter (changed after that time), a page at a time (pageSize 1–100, default 50;
// nextPageToken is "" on the last page). Artifacts only with includeArtifacts; historyLength keeps the
// last messages of each history. Tasks are listed as stored: reading one (GetTask, a stream, a push
// notification's watch) is what moves it on to its answer.
import { resolveAgent } from '../agents/contract.js';
import { validate } from '../../protocol/validate.js';
import { schema } from './context.js';
import { RpcError, type Endpoint } from './operations.js';
import type { TaskRow } from './tasks.js';
import { toV1Task } from './v1-shapes.js';

const DEFAULT_PAGE_SIZE = 50;

export interface ListTasksParams {
  contextId?: string;
  status?: string;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export async function listTasks(params: unknown, endpoint: Endpoint) {
  const p = validate<ListTasksParams>(schema(endpoint.ctx, 'rpc-v1-list-tasks.json'), params, 'params');
  const { req, ctx, agent } = endpoint;
  const pageSize = p.pageSize ?? DEFAULT_PAGE_SIZE;
  const filtered = ctx.db<TaskRow>('a2a_tasks').where({ tenant_id: req.auth.tenantId });
  if (agent !== undefined) filtered.andWhere({ agent_id: (await resolveAgent(ctx.host, { requestId: req.id }, agent)).id });
  if (p.contextId) filtered.andWhere({ context_id: p.contextId });
  if (p.status) filtered.andWhere('state', p.status.slice('TASK_STATE_'.length).toLowerCase().replace(/_/g, '-'));
  if (p.statusTimestampAfter) filtered.andWhere('updated_at', '>', new Date(p.statusTimestampAfter).toISOString());
  const total = Number((await filtered.clone().count({ n: '*' }).first())?.n ?? 0);
  const page = filtered.clone().orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(pageSize + 1);
  if (p.pageToken) {
    const [updatedAt, id] = cursorOf(p.pageToken);
    page.andWhere((q) => q.where('updated_at', '<', updatedAt).orWhere((same) => same.where('updated_at', updatedAt).andWhere('id', '<', id)));
  }
  const rows = await page;
  const more = rows.length > pageSize;
  const shown = rows.slice(0, pageSize);
  const last = shown[shown.length - 1];
  return {
    tasks: shown.map((row) => {
      const task = toV1Task(row, p.historyLength);
      return p.includeArtifacts === true ? task : { ...task, artifacts: [] };
    }),
    nextPageToken: more && last ? Buffer.from(JSON.stringify([last.updated_at, last.id])).toString('base64url') : '',
    pageSize,
    totalSize: total,
  };
}

/** HTTP+JSON's query string as ListTasks' params (numbers and booleans from their text). */
export function listParamsOf(query: Record<string, string | string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1]! : raw;
    if (name === 'pageSize' || name === 'historyLength') out[name] = /^\d+$/.test(value) ? Number(value) : value;
    else if (name === 'includeArtifacts') out[name] = value === 'true' ? true : value === 'false' ? false : value;
    else out[name] = value;
  }
  return out;
}

function cursorOf(token: string): [string, string] {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(cursor) && cursor.length === 2 && cursor.every((v) => typeof v === 'string')) return cursor as [string, string];
  } catch {
    // Not ours: answered below.
  }
  throw new RpcError(-32602, 'Invalid params: pageToken is not one this server gave');
}
