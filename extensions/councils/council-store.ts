// Council records, always read and written within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';

export interface Council {
  id: string;
  name: string;
  description: string;
  /** Agent ids, in the order they are shown to each other. */
  members: string[];
  /** A member who writes the final answer, unless a synthesizer is designated. */
  chairId: string | null;
  /** Any agent of the tenant designated to write the final answer. */
  synthesizerId: string | null;
  rounds: number;
  questionTemplate: string;
  /** How many members must still be answering for the council to go on. */
  quorum: number;
  memberTimeoutSeconds: number;
  createdAt: string;
  updatedAt: string;
}

export type CouncilInput = Partial<Omit<Council, 'id' | 'createdAt' | 'updatedAt'>>;

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  members: string;
  chair_id: string | null;
  synthesizer_id: string | null;
  rounds: number;
  question_template: string;
  quorum: number;
  member_timeout_seconds: number;
  created_at: string;
  updated_at: string;
}

export const DEFAULT_TEMPLATE = '{{prompt}}';
export const DEFAULT_MEMBER_TIMEOUT_SECONDS = 600;
/** A majority of the members, unless the council says otherwise. */
export const defaultQuorum = (members: number) => Math.floor(members / 2) + 1;

export class CouncilStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest): Promise<{ councils: Council[]; total?: number; hasMore: boolean }> {
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from: 'councils WHERE tenant_id = ?', params: [tenantId], orderBy: 'created_at, id' }, page);
    return { councils: rows.map(toCouncil), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Council | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM councils WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toCouncil(row);
  }

  async create(tenantId: string, council: Omit<Council, 'id' | 'createdAt' | 'updatedAt'>): Promise<Council> {
    const now = new Date().toISOString();
    const row: Row = { id: randomUUID(), tenant_id: tenantId, ...toColumns(council), created_at: now, updated_at: now };
    await this.db('councils').insert(row);
    return toCouncil(row);
  }

  async replace(tenantId: string, council: Council): Promise<Council> {
    const updated = { ...council, updatedAt: new Date().toISOString() };
    await this.db('councils').where({ tenant_id: tenantId, id: council.id }).update({ ...toColumns(updated), updated_at: updated.updatedAt });
    return updated;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('councils').where({ tenant_id: tenantId, id }).delete()) > 0;
  }
}

function toColumns(c: Omit<Council, 'id' | 'createdAt' | 'updatedAt'>) {
  return {
    name: c.name,
    description: c.description,
    members: JSON.stringify(c.members),
    chair_id: c.chairId,
    synthesizer_id: c.synthesizerId,
    rounds: c.rounds,
    question_template: c.questionTemplate,
    quorum: c.quorum,
    member_timeout_seconds: c.memberTimeoutSeconds,
  };
}

function toCouncil(row: Row): Council {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    members: JSON.parse(row.members) as string[],
    chairId: row.chair_id,
    synthesizerId: row.synthesizer_id,
    rounds: Number(row.rounds),
    questionTemplate: row.question_template,
    quorum: Number(row.quorum),
    memberTimeoutSeconds: Number(row.member_timeout_seconds),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
