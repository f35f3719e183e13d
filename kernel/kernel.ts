// Everything the kernel is made of, wired once at start-up and handed to the fronts (HTTP, WebSocket, MCP).
import type { Knex } from 'knex';
import type { AuditLog } from './audit/log.js';
import type { Log } from './log.js';
import type { Authenticator } from './auth/identity.js';
import type { KeyStore } from './auth/keys.js';
import type { RateLimiter } from './auth/rate-limit.js';
import type { EventBus } from './bus.js';
import type { ServerConfig } from './config.js';
import type { Dispatcher } from './http/dispatch.js';
import type { RouteTable } from './http/route-table.js';
import type { ExtensionRegistry } from './host/registry.js';
import type { Leadership } from './leader.js';
import type { McpTokens } from './mcp/tokens.js';
import type { KernelMetrics } from './metrics.js';
import type { Settings } from './settings.js';
import type { TenantReadOnly } from './tenants/read-only.js';
import type { Tracing } from './tracing/tracing.js';
import type { WsHub } from './ws/hub.js';

export interface Kernel {
  config: ServerConfig;
  version: string;
  startedAt: number;
  db: Knex;
  schemaVersion: number;
  bus: EventBus;
  audit: AuditLog;
  keys: KeyStore;
  readOnly: TenantReadOnly;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  settings: Settings;
  registry: ExtensionRegistry;
  routes: RouteTable;
  dispatcher: Dispatcher;
  mcpTokens: McpTokens;
  leadership: Leadership;
  ws: WsHub;
  metrics: KernelMetrics;
  log: Log;
  /** OpenTelemetry tracing, when an OTLP endpoint is set (tracing/tracing.ts); undefined otherwise. */
  tracing?: Tracing;
  /** A graceful restart (close, then start again in the same process); refused when nothing would start it again. */
  requestRestart(reason: string): void;
}

export const OPERATIONAL_MODES = ['normal', 'queued', 'paused'] as const;
/** The settings key (default tenant) of the operational mode, which every extension also learns at init. */
export const OPERATIONAL_MODE_KEY = 'operational_mode';
export type OperationalMode = (typeof OPERATIONAL_MODES)[number];
