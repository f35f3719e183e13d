// The allowlist: the addresses that may talk to the tenant's agents, each with a label; an owner entry
// marks one of the owner's own addresses (privileged slash commands, approvals, no credits charged).
import type { Knex } from 'knex';

export interface AllowlistEntry {
  address: string;
  label: string;
  owner: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  tenant_id: string;
  address: string;
  label: string;
  owner: boolean | number;
  created_at: string;
  updated_at: string;
}

const toEntry = (r: Row): AllowlistEntry => ({ address: r.address, label: r.label, owner: Boolean(r.owner), createdAt: r.created_at, updatedAt: r.updated_at });

export class Allowlist {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string, page: { limit: number; offset: number }): Promise<{ entries: AllowlistEntry[]; hasMore: boolean }> {
    const rows = await this.db<Row>('cc_allowlist').where({ tenant_id: tenantId }).orderBy([{ column: 'created_at' }, { column: 'address' }]).limit(page.limit + 1).offset(page.offset);
    return { entries: rows.slice(0, page.limit).map(toEntry), hasMore: rows.length > page.limit };
  }

  async get(tenantId: string, address: string): Promise<AllowlistEntry | undefined> {
    const row = await this.db<Row>('cc_allowlist').where({ tenant_id: tenantId, address }).first();
    return row && toEntry(row);
  }

  async isEmpty(tenantId: string): Promise<boolean> {
    return !(await this.db('cc_allowlist').where({ tenant_id: tenantId }).first('address'));
  }

  /** false when the address is listed already. */
  async add(tenantId: string, entry: { address: string; label: string; owner: boolean }): Promise<boolean> {
    if (await this.get(tenantId, entry.address)) return false;
    const now = new Date().toISOString();
    await this.db('cc_allowlist').insert({ tenant_id: tenantId, address: entry.address, label: entry.label, owner: entry.owner, created_at: now, updated_at: now }).onConflict(['tenant_id', 'address']).ignore();
    return true;
  }

  async update(tenantId: string, address: string, change: { label?: string; owner?: boolean }): Promise<AllowlistEntry | undefined> {
    const updated = await this.db('cc_allowlist').where({ tenant_id: tenantId, address }).update({ ...change, updated_at: new Date().toISOString() });
    return updated > 0 ? this.get(tenantId, address) : undefined;
  }

  async remove(tenantId: string, address: string): Promise<boolean> {
    return (await this.db('cc_allowlist').where({ tenant_id: tenantId, address }).delete()) > 0;
  }
}
