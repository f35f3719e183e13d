// What the extension registry needs of the server: its database, its limits and timings, and the
// services, storage and launch of each extension's process (hosting.ts gives them).
import type { Knex } from 'knex';
import type { StorageInfo } from '../../protocol/messages.js';
import type { Launch } from './launcher.js';
import type { Manifest } from './manifest.js';
import type { Extension } from './extension-record.js';
import type { HostServices } from './services.js';

export interface RegistryDeps {
  db: Knex;
  crashBudget: number;
  crashWindowMs: number;
  /** A start fails after this long without progress, unless the manifest sets start_timeout_ms. */
  startStallMs: number;
  /** A start fails after this long whatever its progress. */
  startCapMs: number;
  /** How long a request waits for an extension that is starting or restarting before it gets a 503. */
  waitMs: number;
  storageFor(name: string): Promise<StorageInfo>;
  servicesFor(name: string): HostServices;
  initConfig(name: string): Promise<Record<string, unknown>>;
  /** The environment, node flags and sandbox of an extension's process (the OS-level side of its grants). */
  launch(manifest: Manifest, grants: Set<string>): Promise<Launch>;
  /** Milliseconds without traffic after which a lazy extension is stopped; 0: never. */
  idleMs: number;
  /** Milliseconds after the start at which the deferred extensions start (unless used first); 0: with the eager ones. */
  deferredStartMs: number;
  /** Whether something outside the extension depends on it running (WebSocket stream subscribers). */
  busy(name: string): boolean;
  /** Called when an extension's routes, tools or subscriptions come or go, and when its grants change. */
  onChange(extension: Extension, change: 'registered' | 'unloaded' | 'grants'): void;
  log(level: string, message: string): void;
  /** A line the extension wrote to stderr (logged within the server's limit per extension). */
  stderrLine(name: string, line: string): void;
}
