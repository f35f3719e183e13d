// Pre-shared keys: the tenant's exchange key (one current; a rotated-out one is still accepted until its
// grace period ends) and each PSK contact's own key. A note names its key by id (envelope.keyIdOf).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Sealer } from '../../sdk/sealed.js';
import { keyIdOf } from './envelope.js';
import { newPsk } from './keys.js';

export interface Psk {
  id: string;
  tenantId: string;
  /** null for an exchange key. */
  contactId: string | null;
  keyId: string;
  psk: Buffer;
  createdAt: string;
  expiresAt: string | null;
}

interface Row {
  id: string;
  tenant_id: string;
  contact_id: string | null;
  key_id: string;
  psk_enc: string;
  created_at: string;
  expires_at: string | null;
}

const context = (tenantId: string, id: string) => `chainchat psk\0${tenantId}\0${id}`;

export class PskKeys {
  constructor(private readonly db: Knex, private readonly sealer: Sealer, private readonly now: () => Date = () => new Date()) {}

  async create(tenantId: string, contactId: string | null, trx: Knex = this.db): Promise<Psk> {
    const id = randomUUID();
    const psk = newPsk();
    const row = { id, tenant_id: tenantId, contact_id: contactId, key_id: keyIdOf(psk).toString('hex'), psk_enc: this.sealer.seal(psk.toString('base64'), context(tenantId, id)), created_at: this.now().toISOString(), expires_at: null };
    await trx('cc_keys').insert(row);
    return this.toPsk(row);
  }

  /** The current exchange key, made on first use. */
  async currentExchange(tenantId: string): Promise<Psk> {
    const row = await this.db<Row>('cc_keys').where({ tenant_id: tenantId }).whereNull('contact_id').whereNull('expires_at').orderBy('created_at', 'desc').first();
    return row ? this.toPsk(row) : this.create(tenantId, null);
  }

  /** A new exchange key; the ones before it stay valid for `graceSeconds`. */
  async rotateExchange(tenantId: string, graceSeconds: number): Promise<{ current: Psk; previousExpiresAt: string }> {
    const expiresAt = new Date(this.now().getTime() + graceSeconds * 1000).toISOString();
    return this.db.transaction(async (trx) => {
      await trx('cc_keys').where({ tenant_id: tenantId }).whereNull('contact_id').whereNull('expires_at').update({ expires_at: expiresAt });
      return { current: await this.create(tenantId, null, trx), previousExpiresAt: expiresAt };
    });
  }

  /** The keys a note naming `keyId` may be sealed with: unexpired ones only. */
  async byKeyId(tenantId: string, keyId: string): Promise<Psk[]> {
    const rows = await this.db<Row>('cc_keys').where({ tenant_id: tenantId, key_id: keyId });
    const now = this.now().toISOString();
    return rows.filter((r) => r.expires_at === null || r.expires_at > now).map((r) => this.toPsk(r));
  }

  async byId(tenantId: string, id: string): Promise<Psk | undefined> {
    const row = await this.db<Row>('cc_keys').where({ tenant_id: tenantId, id }).first();
    return row ? this.toPsk(row) : undefined;
  }

  async ofContact(tenantId: string, contactId: string): Promise<Psk | undefined> {
    const row = await this.db<Row>('cc_keys').where({ tenant_id: tenantId, contact_id: contactId }).first();
    return row ? this.toPsk(row) : undefined;
  }

  private toPsk(row: Row): Psk {
    return {
      id: row.id, tenantId: row.tenant_id, contactId: row.contact_id, keyId: row.key_id,
      psk: Buffer.from(this.sealer.open(row.psk_enc, context(row.tenant_id, row.id)), 'base64'),
      createdAt: row.created_at, expiresAt: row.expires_at,
    };
  }
}
