// MCP server configs, always read and written within one tenant. The env and header values are sealed
// with the extension's Sealer before they reach the database, and only the connection code ever opens them.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict } from '../../protocol/errors.js';
import type { Sealer } from '../_shared/sealed.js';

export type Transport = 'stdio' | 'http';
export type AgentScope = 'all' | string[];

export interface Secrets {
  env: Record<string, string>;
  headers: Record<string, string>;
}

export interface ServerConfig {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  transport: Transport;
  command: string | null;
  args: string[];
  cwd: string | null;
  url: string | null;
  agentIds: AgentScope;
  enabled: boolean;
  envNames: string[];
  headerNames: string[];
  createdAt: string;
  updatedAt: string;
}

/** Everything needed to connect: the config with its secrets opened. */
export interface ConnectableConfig extends ServerConfig {
  secrets: Secrets;
}

/** A whole config as written by a client (create, or an update merged onto the stored one). */
export type ServerInput = Pick<ServerConfig, 'name' | 'description' | 'transport' | 'command' | 'args' | 'cwd' | 'url' | 'agentIds' | 'enabled'> & { secrets: Secrets };

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  transport: string;
  command: string | null;
  args: string;
  cwd: string | null;
  url: string | null;
  agent_ids: string;
  enabled: boolean | number;
  secret_names: string;
  secrets: string;
  created_at: string;
  updated_at: string;
}

export class ServerStore {
  constructor(private readonly db: Knex, private readonly box: Sealer) {}

  async list(tenantId: string): Promise<ServerConfig[]> {
    const rows = await this.db<Row>('mcp_servers').where({ tenant_id: tenantId }).orderBy([{ column: 'name' }, { column: 'id' }]);
    return rows.map(toConfig);
  }

  async get(tenantId: string, id: string): Promise<ServerConfig | undefined> {
    const row = await this.db<Row>('mcp_servers').where({ tenant_id: tenantId, id }).first();
    return row && toConfig(row);
  }

  async connectable(tenantId: string, id: string): Promise<ConnectableConfig | undefined> {
    const row = await this.db<Row>('mcp_servers').where({ tenant_id: tenantId, id }).first();
    return row && this.opened(row);
  }

  /** Enabled configs this agent may use, ready to connect. */
  async forAgent(tenantId: string, agentId: string): Promise<ConnectableConfig[]> {
    const rows = await this.db<Row>('mcp_servers').where({ tenant_id: tenantId, enabled: true }).orderBy('name');
    return rows.filter((row) => mayUse(toConfig(row), agentId)).map((row) => this.opened(row));
  }

  async create(tenantId: string, input: ServerInput): Promise<ServerConfig> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const row: Row = { id, tenant_id: tenantId, ...this.columns(tenantId, id, input), created_at: now, updated_at: now };
    await this.unique(input.name, () => this.db('mcp_servers').insert(row));
    return toConfig(row);
  }

  async update(tenantId: string, id: string, input: ServerInput): Promise<ServerConfig | undefined> {
    const patch = { ...this.columns(tenantId, id, input), updated_at: new Date().toISOString() };
    const n = await this.unique(input.name, () => this.db('mcp_servers').where({ tenant_id: tenantId, id }).update(patch));
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('mcp_servers').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  private opened(row: Row): ConnectableConfig {
    return { ...toConfig(row), secrets: JSON.parse(this.box.open(row.secrets, binding(row.tenant_id, row.id))) as Secrets };
  }

  private columns(tenantId: string, id: string, input: ServerInput): Omit<Row, 'id' | 'tenant_id' | 'created_at' | 'updated_at'> {
    return {
      name: input.name,
      description: input.description,
      transport: input.transport,
      command: input.command,
      args: JSON.stringify(input.args),
      cwd: input.cwd,
      url: input.url,
      agent_ids: JSON.stringify(input.agentIds),
      enabled: input.enabled,
      secret_names: JSON.stringify({ env: Object.keys(input.secrets.env), headers: Object.keys(input.secrets.headers) }),
      secrets: this.box.seal(JSON.stringify(input.secrets), binding(tenantId, id)),
    };
  }

  /** Runs a write; a second config of the same name in the tenant is a 409 on both databases. */
  private async unique<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (/unique|duplicate/i.test(String((err as Error).message))) throw conflict(`an MCP server named "${name}" already exists`);
      throw err;
    }
  }
}

export function mayUse(config: Pick<ServerConfig, 'agentIds'>, agentId: string): boolean {
  return config.agentIds === 'all' || config.agentIds.includes(agentId);
}

const binding = (tenantId: string, id: string) => `mcp-server:${tenantId}:${id}`;

function toConfig(row: Row): ServerConfig {
  const names = JSON.parse(row.secret_names) as { env: string[]; headers: string[] };
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    transport: row.transport === 'http' ? 'http' : 'stdio',
    command: row.command,
    args: JSON.parse(row.args) as string[],
    cwd: row.cwd,
    url: row.url,
    agentIds: JSON.parse(row.agent_ids) as AgentScope,
    enabled: Boolean(row.enabled),
    envNames: names.env,
    headerNames: names.headers,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
