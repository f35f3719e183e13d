// Settings: small JSON values per tenant (and the instance-wide ones under the default tenant).
import type { Knex } from 'knex';

export class Settings {
  constructor(private readonly db: Knex) {}

  async get<T>(tenantId: string, key: string, fallback: T): Promise<T> {
    const row = await this.db('settings').where({ tenant_id: tenantId, key }).first();
    return row ? (JSON.parse(row.value) as T) : fallback;
  }

  async all(tenantId: string): Promise<Record<string, unknown>> {
    const rows: Array<{ key: string; value: string }> = await this.db('settings').where({ tenant_id: tenantId });
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }

  async set(tenantId: string, key: string, value: unknown): Promise<void> {
    await this.db('settings')
      .insert({ tenant_id: tenantId, key, value: JSON.stringify(value), updated_at: new Date().toISOString() })
      .onConflict(['tenant_id', 'key']).merge();
  }
}
