// Remote Roost (or other A2A) servers a tenant talks to. The API key is sealed at rest and never
// answered: a remote says only whether it has one.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict } from '../../protocol/errors.js';
import type { Sealer } from '../../sdk/sealed.js';

export interface Remote {
  id: string;
  name: string;
  url: string;
  hasApiKey: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  api_key_sealed: string | null;
  created_at: string;
  updated_at: string;
}

/** The form a remote's URL is stored and matched in: origin and path, no trailing slash, query or fragment. */
export const baseOf = (url: URL): string => `${url.origin}${url.pathname.replace(/\/+$/, '')}`;

export class RemoteStore {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string): Promise<Remote[]> {
    return (await this.db<Row>('a2a_remotes').where({ tenant_id: tenantId }).orderBy('name')).map(toRemote);
  }

  async get(tenantId: string, id: string): Promise<Remote | undefined> {
    const row = await this.db<Row>('a2a_remotes').where({ tenant_id: tenantId, id }).first();
    return row && toRemote(row);
  }

  /** The remote registered for this URL, if any: the URL itself, or an address under it. */
  async matching(tenantId: string, url: URL): Promise<Remote | undefined> {
    const rows = await this.db<Row>('a2a_remotes').where({ tenant_id: tenantId }).andWhere('url', 'like', `${url.origin}%`);
    const base = baseOf(url);
    const best = rows.filter((r) => base === r.url || base.startsWith(`${r.url}/`)).sort((a, b) => b.url.length - a.url.length)[0];
    return best && toRemote(best);
  }

  async apiKey(tenantId: string, id: string, sealer: Sealer): Promise<string | null> {
    const row = await this.db<Row>('a2a_remotes').where({ tenant_id: tenantId, id }).first();
    return row?.api_key_sealed ? sealer.open(row.api_key_sealed, aad(tenantId, id)) : null;
  }

  async create(tenantId: string, input: { name: string; url: string; apiKey?: string }, sealer: Sealer): Promise<Remote> {
    await this.mustBeFree(tenantId, input.name);
    const now = new Date().toISOString();
    const id = randomUUID();
    const row: Row = { id, tenant_id: tenantId, name: input.name, url: input.url, api_key_sealed: input.apiKey ? sealer.seal(input.apiKey, aad(tenantId, id)) : null, created_at: now, updated_at: now };
    await this.db('a2a_remotes').insert(row);
    return toRemote(row);
  }

  async update(tenantId: string, id: string, change: { name?: string; url?: string; apiKey?: string | null }, sealer: Sealer): Promise<Remote | undefined> {
    const current = await this.get(tenantId, id);
    if (!current) return undefined;
    if (change.name !== undefined && change.name !== current.name) await this.mustBeFree(tenantId, change.name);
    const patch: Partial<Row> = { updated_at: new Date().toISOString() };
    if (change.name !== undefined) patch.name = change.name;
    if (change.url !== undefined) patch.url = change.url;
    if (change.apiKey !== undefined) patch.api_key_sealed = change.apiKey === null ? null : sealer.seal(change.apiKey, aad(tenantId, id));
    await this.db('a2a_remotes').where({ tenant_id: tenantId, id }).update(patch);
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('a2a_remotes').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  private async mustBeFree(tenantId: string, name: string): Promise<void> {
    if (await this.db('a2a_remotes').where({ tenant_id: tenantId, name }).first()) throw conflict(`a remote named ${name} exists`);
  }
}

const aad = (tenantId: string, id: string) => `${tenantId}/${id}`;

function toRemote(row: Row): Remote {
  return { id: row.id, name: row.name, url: row.url, hasApiKey: row.api_key_sealed !== null, createdAt: row.created_at, updatedAt: row.updated_at };
}
