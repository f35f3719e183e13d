// MCP server configs, always read and written within one tenant. What may carry a secret — the env and
// header values, the stdio args and the HTTP URL — is sealed with the extension's Sealer before it
// reaches the database: `secrets` holds {env, headers}, `target_sealed` {args, url}. Reads, updates that
// keep them, and deletes never open them, so a config sealed under another key can still be listed,
// given new secrets or removed; only connecting opens them (open()).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError, conflict } from '../../protocol/errors.js';
import type { Sealer } from '../../sdk/sealed.js';

export type Transport = 'stdio' | 'http';
export type AgentScope = 'all' | string[];

/** The maps of secret values: env for stdio, headers for http (the other is empty). */
export interface Secrets {
  env: Record<string, string>;
  headers: Record<string, string>;
}

/** Where the server is: args for stdio, url for http. */
export interface Target {
  args: string[];
  url: string | null;
}

export interface ServerConfig {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  transport: Transport;
  command: string | null;
  cwd: string | null;
  /** The URL's origin only (the whole URL is sealed). */
  urlOrigin: string | null;
  argCount: number;
  agentIds: AgentScope;
  enabled: boolean;
  envNames: string[];
  headerNames: string[];
  createdAt: string;
  updatedAt: string;
  /** The sealed columns as stored (never answered: publicView leaves them out). */
  sealed: { secrets: string; target: string };
}

/** Everything needed to connect: the config with its sealed parts opened. */
export interface ConnectableConfig extends ServerConfig {
  secrets: Secrets;
  target: Target;
}

/** A config as written: `secrets` or `target` left out keeps the stored sealed value (an update). */
export type ServerInput = Pick<ServerConfig, 'name' | 'description' | 'transport' | 'command' | 'cwd' | 'agentIds' | 'enabled'> & { secrets?: Secrets; target?: Target };

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
  target_sealed: string | null;
  created_at: string;
  updated_at: string;
}

interface Names {
  env: string[];
  headers: string[];
  args?: number;
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

  /** Enabled configs this agent may use (not opened: one that does not open must not hide the others). */
  async forAgent(tenantId: string, agentId: string): Promise<ServerConfig[]> {
    const rows = await this.db<Row>('mcp_servers').where({ tenant_id: tenantId, enabled: true }).orderBy('name');
    return rows.map(toConfig).filter((config) => mayUse(config, agentId));
  }

  /** The config with its secrets opened; 409 CONFLICT, saying what to do, when they were sealed under another key. */
  open(config: ServerConfig): ConnectableConfig {
    try {
      const secrets = JSON.parse(this.box.open(config.sealed.secrets, binding(config.tenantId, config.id))) as Secrets;
      const target = JSON.parse(this.box.open(config.sealed.target, targetBinding(config.tenantId, config.id))) as Target;
      return { ...config, secrets, target };
    } catch (err) {
      if (!(err instanceof RoostError)) throw err;
      const what = config.transport === 'stdio' ? 'args and env' : 'url and headers';
      throw conflict(`the secrets of MCP server "${config.name}" do not open with this deployment's sealing key (was ROOST_SEALING_KEY or <dataDir>/sealing.key changed?): restore that key, or send its ${what} again in full (PUT /api/mcp-servers/${config.id})`);
    }
  }

  /** Whether open() would succeed. */
  readable(config: ServerConfig): boolean {
    try {
      this.open(config);
      return true;
    } catch {
      return false;
    }
  }

  async create(tenantId: string, input: Required<ServerInput>): Promise<ServerConfig> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const row = { id, tenant_id: tenantId, ...this.columns(tenantId, id, input), created_at: now, updated_at: now };
    await this.unique(input.name, () => this.db('mcp_servers').insert(row));
    return (await this.get(tenantId, id))!;
  }

  async update(stored: ServerConfig, input: ServerInput): Promise<ServerConfig | undefined> {
    const patch = { ...this.columns(stored.tenantId, stored.id, input, stored), updated_at: new Date().toISOString() };
    const n = await this.unique(input.name, () => this.db('mcp_servers').where({ tenant_id: stored.tenantId, id: stored.id }).update(patch));
    return n > 0 ? this.get(stored.tenantId, stored.id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('mcp_servers').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  /**
   * Rows written before the args and URL were sealed (migration 002): sealed now, their plain columns
   * cleared. Answers how many were converted.
   */
  async sealLegacyTargets(): Promise<number> {
    const rows = await this.db<Row>('mcp_servers').whereNull('target_sealed');
    for (const row of rows) {
      const target: Target = { args: JSON.parse(row.args) as string[], url: row.url };
      const names = { ...(JSON.parse(row.secret_names) as Names), args: target.args.length };
      await this.db('mcp_servers').where({ id: row.id }).update({
        target_sealed: this.box.seal(JSON.stringify(target), targetBinding(row.tenant_id, row.id)),
        args: '[]',
        url: target.url === null ? null : originOf(target.url),
        secret_names: JSON.stringify(names),
      });
    }
    return rows.length;
  }

  private columns(tenantId: string, id: string, input: ServerInput, stored?: ServerConfig): Partial<Row> {
    const names: Names = {
      env: input.secrets ? Object.keys(input.secrets.env) : stored!.envNames,
      headers: input.secrets ? Object.keys(input.secrets.headers) : stored!.headerNames,
      args: input.target ? input.target.args.length : stored!.argCount,
    };
    return {
      name: input.name,
      description: input.description,
      transport: input.transport,
      command: input.command,
      cwd: input.cwd,
      agent_ids: JSON.stringify(input.agentIds),
      enabled: input.enabled,
      secret_names: JSON.stringify(names),
      args: '[]',
      ...(input.secrets ? { secrets: this.box.seal(JSON.stringify(input.secrets), binding(tenantId, id)) } : {}),
      ...(input.target
        ? { target_sealed: this.box.seal(JSON.stringify(input.target), targetBinding(tenantId, id)), url: input.target.url === null ? null : originOf(input.target.url) }
        : {}),
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

export const originOf = (url: string): string => new URL(url).origin;

const binding = (tenantId: string, id: string) => `mcp-server:${tenantId}:${id}`;
const targetBinding = (tenantId: string, id: string) => `mcp-server:${tenantId}:${id}:target`;

function toConfig(row: Row): ServerConfig {
  const names = JSON.parse(row.secret_names) as Names;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    transport: row.transport === 'http' ? 'http' : 'stdio',
    command: row.command,
    cwd: row.cwd,
    urlOrigin: row.url,
    argCount: names.args ?? 0,
    agentIds: JSON.parse(row.agent_ids) as AgentScope,
    enabled: Boolean(row.enabled),
    envNames: names.env,
    headerNames: names.headers,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // target_sealed is null only in rows of migration 001 not yet sealed, and those are sealed at start.
    sealed: { secrets: row.secrets, target: row.target_sealed ?? '' },
  };
}
