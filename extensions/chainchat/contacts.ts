// PSK contacts: a name (renamable), the address they talk from (bound on their first message unless
// given), and their own pre-shared key (psk-keys.ts).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict } from '../../protocol/errors.js';

export interface Contact {
  id: string;
  name: string;
  address: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  address: string | null;
  created_at: string;
  updated_at: string;
}

const toContact = (r: Row): Contact => ({ id: r.id, name: r.name, address: r.address, createdAt: r.created_at, updatedAt: r.updated_at });

export class Contacts {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string, page: { limit: number; offset: number }): Promise<{ contacts: Contact[]; hasMore: boolean }> {
    const rows = await this.db<Row>('cc_contacts').where({ tenant_id: tenantId }).orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(page.limit + 1).offset(page.offset);
    return { contacts: rows.slice(0, page.limit).map(toContact), hasMore: rows.length > page.limit };
  }

  async get(tenantId: string, id: string): Promise<Contact | undefined> {
    const row = await this.db<Row>('cc_contacts').where({ tenant_id: tenantId, id }).first();
    return row && toContact(row);
  }

  /** By name, ignoring case (svc_lookup_contact). */
  async byName(tenantId: string, name: string): Promise<Contact[]> {
    const rows = await this.db<Row>('cc_contacts').where({ tenant_id: tenantId }).whereRaw('LOWER(name) = ?', [name.toLowerCase()]);
    return rows.map(toContact);
  }

  async byAddress(tenantId: string, address: string): Promise<Contact | undefined> {
    const row = await this.db<Row>('cc_contacts').where({ tenant_id: tenantId, address }).first();
    return row && toContact(row);
  }

  async create(tenantId: string, input: { name: string; address?: string | null }, trx: Knex = this.db): Promise<Contact> {
    if (input.address && (await this.byAddress(tenantId, input.address))) throw conflict(`a PSK contact already talks from ${input.address}`);
    const now = new Date().toISOString();
    const row: Row = { id: randomUUID(), tenant_id: tenantId, name: input.name, address: input.address ?? null, created_at: now, updated_at: now };
    await trx('cc_contacts').insert(row);
    return toContact(row);
  }

  async rename(tenantId: string, id: string, name: string): Promise<Contact | undefined> {
    await this.db('cc_contacts').where({ tenant_id: tenantId, id }).update({ name, updated_at: new Date().toISOString() });
    return this.get(tenantId, id);
  }

  /** Binds an address to a contact that has none yet; false when it has another one. */
  async bind(tenantId: string, id: string, address: string): Promise<boolean> {
    await this.db('cc_contacts').where({ tenant_id: tenantId, id }).whereNull('address').update({ address, updated_at: new Date().toISOString() });
    return (await this.get(tenantId, id))?.address === address;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await trx('cc_keys').where({ tenant_id: tenantId, contact_id: id }).delete();
      return (await trx('cc_contacts').where({ tenant_id: tenantId, id }).delete()) > 0;
    });
  }
}
