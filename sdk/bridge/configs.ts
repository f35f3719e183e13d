// A bridge's configuration per tenant: plain settings plus credentials sealed at rest with the
// extension's own key (sdk/sealed.ts), bound to the tenant.
import { RoostError, validationError } from '../../protocol/errors.js';
import type { RouteRequest } from '../extension.js';
import type { HostClient } from '../host-client.js';
import { Sealer } from '../sealed.js';
import type { BridgeStore, ConfigRow } from './store.js';
import { agentsClient } from '../../extensions/agents/contract.js';

export interface BridgeConfig<S, K> {
  tenantId: string;
  routeKey: string | null;
  settings: S;
  secrets: Partial<K>;
  updatedAt: string;
}

export class SealedConfigs<S, K extends Record<string, string>> {
  private sealer: Promise<Sealer> | undefined;

  constructor(
    private readonly host: HostClient,
    private readonly store: BridgeStore,
  ) {}

  async get(tenantId: string): Promise<BridgeConfig<S, K> | undefined> {
    return this.open(await this.store.config(tenantId));
  }

  async byRouteKey(routeKey: string): Promise<BridgeConfig<S, K> | undefined> {
    return this.open(await this.store.configByRouteKey(routeKey));
  }

  async all(): Promise<Array<BridgeConfig<S, K>>> {
    return Promise.all((await this.store.allConfigs()).map(async (row) => (await this.open(row))!));
  }

  /** Refused (409) when another tenant already configured the same workspace or application. */
  async save(tenantId: string, routeKey: string | null, settings: S, secrets: Partial<K>): Promise<void> {
    const sealed = (await this.sealerOf()).seal(JSON.stringify(secrets), `${this.store.bridge}\0${tenantId}`);
    if (!(await this.store.saveConfig({ tenantId, routeKey, settings: settings as Record<string, unknown>, secrets: sealed }))) {
      throw new RoostError('CONFLICT', `another tenant has already connected ${this.store.bridge} ${routeKey}`);
    }
  }

  /** A credential kept outside the configuration (a channel's own bot token in an outbox row), sealed for this tenant. */
  async sealFor(tenantId: string, value: string): Promise<string> {
    return (await this.sealerOf()).seal(value, `${this.store.bridge}\0${tenantId}\0value`);
  }

  async openFor(tenantId: string, sealed: string): Promise<string> {
    return (await this.sealerOf()).open(sealed, `${this.store.bridge}\0${tenantId}\0value`);
  }

  private async open(row: ConfigRow | undefined): Promise<BridgeConfig<S, K> | undefined> {
    if (!row) return undefined;
    const secrets = JSON.parse((await this.sealerOf()).open(row.secrets, `${this.store.bridge}\0${row.tenantId}`)) as Partial<K>;
    return { tenantId: row.tenantId, routeKey: row.routeKey, settings: row.settings as S, secrets, updatedAt: row.updatedAt };
  }

  private sealerOf(): Promise<Sealer> {
    this.sealer ??= Sealer.forExtension(this.host);
    return this.sealer;
  }
}

/** Configuration holds credentials: only a tenant's owner reads or changes it. */
export function requireOwner(req: RouteRequest, bridge: string): void {
  if (req.auth.role !== 'owner') throw new RoostError('FORBIDDEN', `the ${bridge} bridge's configuration needs the owner role; the caller is ${req.auth.role}`);
}

export interface AgentMapping {
  defaultAgentId: string | null;
  /** Chat channel id → agent id. */
  channels: Record<string, string>;
}

/**
 * The agent mapping after a PUT: what the body gives, else what was stored. Every agent it names must be
 * one of the caller's tenant (another tenant's is as unknown as a missing one).
 */
export async function mergeAgentMapping(host: HostClient, req: RouteRequest, input: Partial<AgentMapping>, current: AgentMapping | undefined): Promise<AgentMapping> {
  const mapping = {
    defaultAgentId: input.defaultAgentId === undefined ? (current?.defaultAgentId ?? null) : input.defaultAgentId,
    channels: input.channels ?? current?.channels ?? {},
  };
  for (const id of new Set([...(mapping.defaultAgentId ? [mapping.defaultAgentId] : []), ...Object.values(mapping.channels)])) {
    const reply = await agentsClient(host, { requestId: req.id }).get(id);
    if (reply.status === 404) throw validationError(`agent ${id} not found`);
    if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `checking agent ${id} failed with status ${reply.status}`);
  }
  return mapping;
}
