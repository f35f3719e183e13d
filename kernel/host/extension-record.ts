// What the registry knows of one extension: its manifest, state and process, its grants, and what its
// supervision, start and idle stop keep track of.
import type { Manifest } from './manifest.js';
import type { PluginProcess } from './plugin-process.js';

export type ExtensionState = 'stopped' | 'starting' | 'running' | 'crashed' | 'failed' | 'unloaded';

export interface Extension {
  manifest: Manifest;
  state: ExtensionState;
  process?: PluginProcess;
  starting?: Promise<PluginProcess>;
  grants: Set<string>;
  schemaVersion: number | null;
  crashes: number[];
  restarts: number;
  lastError?: string;
  /** Set while it waits out an environmental fault (supervisor.ts): why, how many tries failed, the next. */
  waiting?: { reason: string; tries: number; retryAt: number };
  /** The last line it wrote to stderr (an environmental exit's reason). */
  lastLine?: string;
  startedAt?: string;
  restartTimer?: NodeJS.Timeout;
  /** The running start was asked for by a request (a cold lazy extension): requests wait for all of it. */
  startOnDemand?: boolean;
  /** An idle stop under way; a start waits for it. */
  stopping?: Promise<void>;
  /** Requests waiting now for it to start (or restart) before they can be sent. */
  startWaiting: number;
  /** The depth of each queue it reported (`queue_depth`), kept while it is stopped until it reports again. */
  queues: Map<string, number>;
}
