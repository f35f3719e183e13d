// Push notification configs (A2A's TaskPushNotificationConfig): where a task's updates go. The
// credentials of an `authentication` are sealed at rest (the token is the receiver's check that a
// notification is for it, and is answered back, as both versions' Get methods do).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Sealer } from '../../sdk/sealed.js';

export interface PushConfig {
  taskId: string;
  id: string;
  /** The A2A version the config was made in: notifications carry that version's task. */
  version: '0.3' | '1.0';
  url: string;
  token: string | null;
  /** `Bearer`, `Basic` …: sent as `Authorization: <scheme> <credentials>` when there are credentials. */
  scheme: string | null;
  hasCredentials: boolean;
}

interface Row {
  tenant_id: string;
  task_id: string;
  id: string;
  version: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials_sealed: string | null;
  delivered: string | null;
  created_at: string;
}

export const MAX_CONFIGS_PER_TASK = 10;

export class PushConfigStore {
  constructor(private readonly db: Knex) {}

  async put(tenantId: string, input: Omit<PushConfig, 'id' | 'hasCredentials'> & { id?: string; credentials?: string }, sealer: Sealer): Promise<PushConfig> {
    const id = input.id || randomUUID();
    const aad = `${tenantId}/${input.taskId}/${id}`;
    const row: Row = {
      tenant_id: tenantId, task_id: input.taskId, id, version: input.version, url: input.url, token: input.token, auth_scheme: input.scheme,
      auth_credentials_sealed: input.credentials ? sealer.seal(input.credentials, aad) : null, delivered: null, created_at: new Date().toISOString(),
    };
    // Setting a config of an id the task has replaces it.
    await this.db.transaction(async (trx) => {
      await trx('a2a_push_configs').where({ tenant_id: tenantId, task_id: input.taskId, id }).delete();
      await trx('a2a_push_configs').insert(row);
    });
    return toConfig(row);
  }

  async count(tenantId: string, taskId: string): Promise<number> {
    return Number((await this.db('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId }).count({ n: '*' }).first())?.n ?? 0);
  }

  async get(tenantId: string, taskId: string, id: string): Promise<PushConfig | undefined> {
    const row = await this.db<Row>('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId, id }).first();
    return row && toConfig(row);
  }

  async list(tenantId: string, taskId: string): Promise<PushConfig[]> {
    return (await this.db<Row>('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId }).orderBy('created_at')).map(toConfig);
  }

  async delete(tenantId: string, taskId: string, id: string): Promise<boolean> {
    return (await this.db('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId, id }).delete()) > 0;
  }

  /** The configs still owed the task's `state`, with their credentials opened. */
  async owed(tenantId: string, taskId: string, state: string, sealer: Sealer): Promise<Array<PushConfig & { credentials: string | null }>> {
    const rows = await this.db<Row>('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId }).andWhere((q) => q.whereNull('delivered').orWhereNot('delivered', state));
    return rows.map((row) => ({ ...toConfig(row), credentials: row.auth_credentials_sealed ? sealer.open(row.auth_credentials_sealed, `${tenantId}/${taskId}/${row.id}`) : null }));
  }

  async markDelivered(tenantId: string, taskId: string, id: string, state: string): Promise<void> {
    await this.db('a2a_push_configs').where({ tenant_id: tenantId, task_id: taskId, id }).update({ delivered: state });
  }

  /** Tasks with configs whose last pushed state is not a final one: what a restart watches again. */
  async unfinished(): Promise<Array<{ tenantId: string; taskId: string }>> {
    const rows = await this.db('a2a_push_configs as c')
      .join('a2a_tasks as t', (j) => j.on('t.tenant_id', 'c.tenant_id').andOn('t.id', 'c.task_id'))
      .where((q) => q.whereNull('c.delivered').orWhereNotIn('c.delivered', ['completed', 'failed', 'canceled']))
      .distinct('c.tenant_id', 'c.task_id');
    return rows.map((r: { tenant_id: string; task_id: string }) => ({ tenantId: r.tenant_id, taskId: r.task_id }));
  }
}

function toConfig(row: Row): PushConfig {
  return { taskId: row.task_id, id: row.id, version: row.version as PushConfig['version'], url: row.url, token: row.token, scheme: row.auth_scheme, hasCredentials: row.auth_credentials_sealed !== null };
}
