// Workflow records (the graphs), always read and written within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';
import type { WorkflowEdge, WorkflowNode } from './node-types.js';

export interface WorkflowSettings {
  maxNodeRuns?: number;
  maxConcurrentNodes?: number;
}

export interface Workflow {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  settings: WorkflowSettings;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type WorkflowInput = Partial<Pick<Workflow, 'name' | 'description' | 'enabled' | 'nodes' | 'edges' | 'settings'>>;

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  enabled: boolean | number;
  nodes: string;
  edges: string;
  settings: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export class WorkflowStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest): Promise<{ workflows: Workflow[]; total?: number; hasMore: boolean }> {
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from: 'workflows WHERE tenant_id = ?', params: [tenantId], orderBy: 'created_at, id' }, page);
    return { workflows: rows.map(toWorkflow), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Workflow | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM workflows WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toWorkflow(row);
  }

  async create(tenantId: string, input: Required<Pick<WorkflowInput, 'name' | 'nodes' | 'edges'>> & WorkflowInput): Promise<Workflow> {
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      nodes: JSON.stringify(input.nodes),
      edges: JSON.stringify(input.edges),
      settings: JSON.stringify(input.settings ?? {}),
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await this.db('workflows').insert(row);
    return toWorkflow(row);
  }

  async update(tenantId: string, id: string, input: WorkflowInput): Promise<Workflow | undefined> {
    const patch: Record<string, unknown> = { updated_at: new Date().toISOString(), version: this.db.raw('version + 1') };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.enabled !== undefined) patch.enabled = input.enabled;
    if (input.nodes !== undefined) patch.nodes = JSON.stringify(input.nodes);
    if (input.edges !== undefined) patch.edges = JSON.stringify(input.edges);
    if (input.settings !== undefined) patch.settings = JSON.stringify(input.settings);
    const n = await this.db('workflows').where({ tenant_id: tenantId, id }).update(patch);
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('workflows').where({ tenant_id: tenantId, id }).delete()) > 0;
  }
}

function toWorkflow(row: Row): Workflow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: Boolean(row.enabled),
    nodes: JSON.parse(row.nodes) as WorkflowNode[],
    edges: JSON.parse(row.edges) as WorkflowEdge[],
    settings: JSON.parse(row.settings) as WorkflowSettings,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
