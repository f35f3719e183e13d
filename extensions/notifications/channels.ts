// Notification channels: where an owner is reached. A channel belongs to a tenant and, optionally, to
// one agent (agent_id null: every agent of the tenant uses it). Its `config` is shown; its `secrets`
// (bot tokens, webhook tokens) are sealed at rest and only ever named, never returned.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { validationError } from '../../protocol/errors.js';
import type { Sealer } from '../../sdk/sealed.js';

/**
 * A channel's type: `webhook` (POSTed from here) or the name of the bridge extension that delivers it
 * (its /api/internal/bridges/<type>/deliver route). No list of bridges is kept here: a type whose bridge
 * is not loaded is accepted and its deliveries fail saying so.
 */
export type ChannelType = string;

/** The config field a few known types cannot work without (an early, clear error; the bridge checks the rest). */
const REQUIRED: Record<string, string> = { webhook: 'url', telegram: 'chatId', slack: 'channel', discord: 'channelId', codehost: 'repo' };

/** What a delivery needs of its channel: the shown config and the sealed secrets, kept apart. */
export interface ChannelTarget {
  type: ChannelType;
  agentId: string | null;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

export interface ChannelInput {
  type: ChannelType;
  name?: string;
  agentId?: string | null;
  config?: Record<string, unknown>;
  secrets?: Record<string, string>;
  enabled?: boolean;
}

export interface Channel {
  id: string;
  tenantId: string;
  agentId: string | null;
  type: ChannelType;
  name: string;
  config: Record<string, unknown>;
  /** Names of the stored secrets; their values never leave the extension except to the channel itself. */
  secretKeys: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  tenant_id: string;
  agent_id: string | null;
  type: ChannelType;
  name: string;
  config: string;
  secrets: string | null;
  enabled: boolean | number;
  created_at: string;
  updated_at: string;
}

export function checkConfig(type: ChannelType, config: Record<string, unknown>): void {
  const field = REQUIRED[type];
  const value = field ? config[field] : undefined;
  if (field && (value === undefined || value === null || value === '')) throw validationError(`a ${type} channel needs config.${field}`);
  if (type === 'webhook') {
    let url: URL;
    try {
      url = new URL(String(value));
    } catch {
      throw validationError('config.url must be an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError('config.url must be http or https');
  }
}

export class ChannelStore {
  constructor(private readonly db: Knex, private readonly sealer: Sealer) {}

  async list(tenantId: string, filter: { agentId?: string | null; forAgent?: string } = {}): Promise<Channel[]> {
    const q = this.db<Row>('channels').where({ tenant_id: tenantId }).orderBy('created_at').orderBy('id');
    if (filter.agentId !== undefined) q.andWhere({ agent_id: filter.agentId });
    // An agent's view: its own channels and the tenant's.
    if (filter.forAgent !== undefined) q.andWhere((w) => w.where({ agent_id: filter.forAgent }).orWhereNull('agent_id'));
    return (await q).map((r) => this.view(r));
  }

  async get(tenantId: string, id: string): Promise<Channel | undefined> {
    const row = await this.db<Row>('channels').where({ tenant_id: tenantId, id }).first();
    return row ? this.view(row) : undefined;
  }

  /** The channel as a bridge or webhook needs it. */
  async target(tenantId: string, id: string): Promise<ChannelTarget | undefined> {
    const row = await this.db<Row>('channels').where({ tenant_id: tenantId, id }).first();
    if (!row) return undefined;
    return { type: row.type, agentId: row.agent_id, config: JSON.parse(row.config), secrets: this.secrets(row) };
  }

  async create(tenantId: string, input: ChannelInput): Promise<Channel> {
    const config = input.config ?? {};
    checkConfig(input.type, config);
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      agent_id: input.agentId ?? null,
      type: input.type,
      name: input.name ?? input.type,
      config: JSON.stringify(config),
      secrets: input.secrets && Object.keys(input.secrets).length > 0 ? this.sealer.seal(JSON.stringify(input.secrets)) : null,
      enabled: input.enabled ?? true,
      created_at: now,
      updated_at: now,
    };
    await this.db('channels').insert(row);
    return this.view(row);
  }

  /** Secrets given replace the stored ones; secrets left out are kept. The type never changes. */
  async update(tenantId: string, id: string, input: Partial<ChannelInput>): Promise<Channel | undefined> {
    const row = await this.db<Row>('channels').where({ tenant_id: tenantId, id }).first();
    if (!row) return undefined;
    if (input.type !== undefined && input.type !== row.type) throw validationError(`a channel's type cannot change (it is ${row.type})`);
    const config = input.config ?? JSON.parse(row.config);
    checkConfig(row.type, config);
    const patch: Partial<Row> = { config: JSON.stringify(config), updated_at: new Date().toISOString() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.enabled !== undefined) patch.enabled = input.enabled;
    if (input.agentId !== undefined) patch.agent_id = input.agentId;
    if (input.secrets !== undefined) patch.secrets = Object.keys(input.secrets).length > 0 ? this.sealer.seal(JSON.stringify(input.secrets)) : null;
    await this.db('channels').where({ tenant_id: tenantId, id }).update(patch);
    return this.view({ ...row, ...patch });
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('channels').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  private secrets(row: Row): Record<string, string> {
    return row.secrets ? JSON.parse(this.sealer.open(row.secrets)) : {};
  }

  private view(row: Row): Channel {
    return {
      id: row.id,
      tenantId: row.tenant_id,
      agentId: row.agent_id,
      type: row.type,
      name: row.name,
      config: JSON.parse(row.config),
      secretKeys: Object.keys(this.secrets(row)),
      enabled: row.enabled === true || row.enabled === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
