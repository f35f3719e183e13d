// Project records, always read and written within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { containing, likeClause, paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import type { CreateProjectRequest, Project, ProjectInput, ProjectList } from './contract.js';

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  working_dir: string;
  env_vars: string;
  created_at: string;
  updated_at: string;
}


export class ProjectStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest & { search?: string }): Promise<ProjectList> {
    const search = page.search ? ` AND ${likeClause(this.sql.dialect, 'name')}` : '';
    const params: SqlValue[] = page.search ? [tenantId, containing(page.search)] : [tenantId];
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from: `projects WHERE tenant_id = ?${search}`, params, orderBy: 'created_at, id' }, page);
    return { projects: rows.map(toProject), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Project | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM projects WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toProject(row);
  }

  /** How many the tenant has: what its plan's limit counts. */
  async count(tenantId: string): Promise<number> {
    const row = await this.db('projects').where({ tenant_id: tenantId }).count<{ n: number | string }[]>({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async create(tenantId: string, input: CreateProjectRequest): Promise<Project> {
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? '',
      working_dir: input.workingDir,
      env_vars: JSON.stringify(input.env_vars ?? {}),
      created_at: now,
      updated_at: now,
    };
    await this.db('projects').insert(row);
    return toProject(row);
  }

  async update(tenantId: string, id: string, input: ProjectInput): Promise<Project | undefined> {
    const patch: Partial<Row> = { updated_at: new Date().toISOString() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.workingDir !== undefined) patch.working_dir = input.workingDir;
    if (input.env_vars !== undefined) patch.env_vars = JSON.stringify(input.env_vars);
    const n = await this.db('projects').where({ tenant_id: tenantId, id }).update(patch);
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('projects').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  async skills(projectId: string): Promise<string[]> {
    const rows = await this.sql.all<{ bundle_id: string }>('SELECT bundle_id FROM project_skills WHERE project_id = ? ORDER BY position', [projectId]);
    return rows.map((r) => r.bundle_id);
  }

  async setSkills(projectId: string, bundleIds: string[]): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('project_skills').where({ project_id: projectId }).delete();
      if (bundleIds.length > 0) await trx('project_skills').insert(bundleIds.map((bundle_id, position) => ({ project_id: projectId, bundle_id, position })));
    });
  }
}

function toProject(row: Row): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workingDir: row.working_dir,
    env_vars: JSON.parse(row.env_vars) as Record<string, string>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
