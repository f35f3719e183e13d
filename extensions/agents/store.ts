// Agent records, always read and written within one tenant. The wallet address is minted here on
// create and never changes.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict } from '../../protocol/errors.js';
import { containing, likeClause, type PageRequest } from '../../sdk/db.js';
import { fromRow, pagedJson, type JsonPage, type Shape } from '../../sdk/json-shape.js';
import { PROVIDER_DEFAULTS } from '../../lib/providers/defaults.js';
import { ECHO_MODEL } from '../../lib/providers/echo.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import type { AgentRecord } from './contract.js';

/** `echo`: the built-in provider that answers with the prompt (self-tests; chosen only explicitly). */
export const PROVIDERS = ['anthropic', 'ollama', 'echo'] as const;
export const PERMISSION_MODES = ['default', 'acceptEdits', 'full-auto', 'plan'] as const;
export type Provider = (typeof PROVIDERS)[number];
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The model an agent runs when its creator names none: the one default the CLI uses too. */
export const DEFAULT_MODEL: Record<Provider, string> = { anthropic: PROVIDER_DEFAULTS.anthropic.model, ollama: PROVIDER_DEFAULTS.ollama.model, echo: ECHO_MODEL };

/** The contract's record, with the vocabularies this extension keeps. */
export interface Agent extends AgentRecord {
  provider: Provider;
  permissionMode: PermissionMode;
}

export type AgentInput = Partial<Pick<Agent, 'name' | 'description' | 'model' | 'provider' | 'systemPrompt' | 'permissionMode' | 'mcp_tool_permissions'>>;

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  model: string;
  provider: string;
  system_prompt: string;
  permission_mode: string;
  wallet: string;
  mcp_tool_permissions: string;
  created_at: string;
  updated_at: string;
}

/** "rw_" and 40 hex digits: unguessable, so a wallet address names exactly one agent. */
export const newWalletAddress = (): string => `rw_${randomBytes(20).toString('hex')}`;

/** Writes go through knex (db); reads through prepared statements (sql). */
export class AgentStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  /** A page of agents as JSON text, built by the database (the hot path of GET /api/agents). */
  async listJson(tenantId: string, page: PageRequest & { search?: string; wallet?: string }): Promise<JsonPage> {
    let from = 'agents WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    if (page.search) {
      from += ` AND ${likeClause(this.sql.dialect, 'name')}`;
      params.push(containing(page.search));
    }
    if (page.wallet) {
      from += ' AND wallet = ?';
      params.push(page.wallet);
    }
    return pagedJson(this.sql, AGENT_SHAPE, { from, params, orderBy: 'created_at, id' }, page);
  }

  async list(tenantId: string, page: PageRequest & { search?: string; wallet?: string }): Promise<{ agents: Agent[]; total?: number; hasMore: boolean }> {
    const { json, total, hasMore } = await this.listJson(tenantId, page);
    return { agents: JSON.parse(json) as Agent[], ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Agent | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM agents WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toAgent(row);
  }

  /**
   * How many the tenant has: what its plan's limit counts, asked on every create (a prepared statement,
   * not knex). One row the database keeps current (migration 005_agent_counts), not a count of the agents.
   */
  async count(tenantId: string): Promise<number> {
    const row = await this.sql.get<{ n: number | string }>('SELECT n FROM agent_counts WHERE tenant_id = ?', [tenantId]);
    return Number(row?.n ?? 0);
  }

  async create(tenantId: string, input: AgentInput & { name: string }): Promise<Agent> {
    const now = new Date().toISOString();
    const provider = input.provider ?? 'anthropic';
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? '',
      model: input.model ?? DEFAULT_MODEL[provider],
      provider,
      system_prompt: input.systemPrompt ?? '',
      permission_mode: input.permissionMode ?? 'default',
      wallet: newWalletAddress(),
      mcp_tool_permissions: JSON.stringify(input.mcp_tool_permissions ?? []),
      created_at: now,
      updated_at: now,
    };
    await this.unique(input.name, () => this.db('agents').insert(row));
    return toAgent(row);
  }

  async update(tenantId: string, id: string, input: AgentInput): Promise<Agent | undefined> {
    const patch: Partial<Row> = { updated_at: new Date().toISOString() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.model !== undefined) patch.model = input.model;
    if (input.provider !== undefined) patch.provider = input.provider;
    if (input.systemPrompt !== undefined) patch.system_prompt = input.systemPrompt;
    if (input.permissionMode !== undefined) patch.permission_mode = input.permissionMode;
    if (input.mcp_tool_permissions !== undefined) patch.mcp_tool_permissions = JSON.stringify(input.mcp_tool_permissions);
    const n = await this.unique(input.name, () => this.db('agents').where({ tenant_id: tenantId, id }).update(patch));
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await trx('agent_messages').where({ tenant_id: tenantId, to_agent_id: id }).delete();
      return (await trx('agents').where({ tenant_id: tenantId, id }).delete()) > 0;
    });
  }

  /** Agent names are unique within a tenant, so agents can address each other by name. */
  private async unique<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (name !== undefined && /UNIQUE|duplicate key/i.test(String((err as Error).message))) {
        throw conflict(`an agent named "${name}" already exists`);
      }
      throw err;
    }
  }
}

/** An agent's JSON from its row: one map for single reads (toAgent) and for list pages built in SQL. */
const AGENT_SHAPE: Shape = {
  id: 'id',
  name: 'name',
  description: 'description',
  model: 'model',
  provider: 'provider',
  systemPrompt: 'system_prompt',
  permissionMode: 'permission_mode',
  wallet: 'wallet',
  tenant: 'tenant_id',
  mcp_tool_permissions: { json: 'mcp_tool_permissions' },
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

const toAgent = (row: Row): Agent => fromRow<Agent>(AGENT_SHAPE, row as unknown as Record<string, unknown>);
