// Skill bundles (named sets of tools and prompts) and their assignment to agents, within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict, validationError } from '../../protocol/errors.js';
import { containing, likeClause, paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';

export interface Bundle {
  id: string;
  name: string;
  description: string;
  tools: string[];
  prompts: string[];
  /** The preset this bundle was cloned from, or null. */
  preset: string | null;
  createdAt: string;
  updatedAt: string;
}

export type BundleInput = Partial<Pick<Bundle, 'name' | 'description' | 'tools' | 'prompts'>>;

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  tools: string;
  prompts: string;
  preset: string | null;
  created_at: string;
  updated_at: string;
}

export class BundleStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest & { search?: string }): Promise<{ bundles: Bundle[]; total?: number; hasMore: boolean }> {
    const search = page.search ? ` AND ${likeClause(this.sql.dialect, 'name')}` : '';
    const params: SqlValue[] = page.search ? [tenantId, containing(page.search)] : [tenantId];
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from: `skill_bundles WHERE tenant_id = ?${search}`, params, orderBy: 'created_at, id' }, page);
    return { bundles: rows.map(toBundle), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Bundle | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM skill_bundles WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toBundle(row);
  }

  async create(tenantId: string, input: BundleInput & { name: string }, preset: string | null = null): Promise<Bundle> {
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? '',
      tools: JSON.stringify(input.tools ?? []),
      prompts: JSON.stringify(input.prompts ?? []),
      preset,
      created_at: now,
      updated_at: now,
    };
    await uniqueName(input.name, () => this.db('skill_bundles').insert(row));
    return toBundle(row);
  }

  async update(tenantId: string, id: string, input: BundleInput): Promise<Bundle | undefined> {
    const patch: Partial<Row> = { updated_at: new Date().toISOString() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.tools !== undefined) patch.tools = JSON.stringify(input.tools);
    if (input.prompts !== undefined) patch.prompts = JSON.stringify(input.prompts);
    const n = await uniqueName(input.name, () => this.db('skill_bundles').where({ tenant_id: tenantId, id }).update(patch));
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  /** Deleting a bundle also removes it from every agent it was assigned to. */
  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('skill_bundles').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  /** The bundles assigned to an agent, in assignment order. */
  async assigned(agentId: string): Promise<Bundle[]> {
    const rows: Row[] = await this.db('agent_skills')
      .join('skill_bundles', 'skill_bundles.id', 'agent_skills.bundle_id')
      .where('agent_skills.agent_id', agentId)
      .orderBy('agent_skills.position')
      .select('skill_bundles.*');
    return rows.map(toBundle);
  }

  /** The bundles of these ids in the tenant, in the order given; ids that name none are skipped. */
  async byIds(tenantId: string, ids: string[]): Promise<Bundle[]> {
    if (ids.length === 0) return [];
    const rows: Row[] = await this.db('skill_bundles').where({ tenant_id: tenantId }).whereIn('id', ids).select('*');
    const byId = new Map(rows.map((row) => [row.id, toBundle(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Replaces an agent's assignment; every id must name a bundle of the same tenant. */
  async assign(tenantId: string, agentId: string, bundleIds: string[]): Promise<Bundle[]> {
    await this.db.transaction(async (trx) => {
      const found: Array<{ id: string }> = bundleIds.length > 0 ? await trx('skill_bundles').where({ tenant_id: tenantId }).whereIn('id', bundleIds).select('id') : [];
      const known = new Set(found.map((r) => r.id));
      const unknown = bundleIds.filter((id) => !known.has(id));
      if (unknown.length > 0) throw validationError(`body.bundleIds names skill bundles that do not exist: ${unknown.join(', ')}`);
      await trx('agent_skills').where({ agent_id: agentId }).delete();
      if (bundleIds.length > 0) await trx('agent_skills').insert(bundleIds.map((bundle_id, position) => ({ agent_id: agentId, bundle_id, position })));
    });
    return this.assigned(agentId);
  }
}

async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (name !== undefined && /UNIQUE|duplicate key/i.test(String((err as Error).message))) throw conflict(`a skill bundle named "${name}" already exists`);
    throw err;
  }
}

function toBundle(row: Row): Bundle {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tools: JSON.parse(row.tools) as string[],
    prompts: JSON.parse(row.prompts) as string[],
    preset: row.preset,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
