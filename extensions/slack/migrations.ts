import type { Migration } from '../../lib/storage.js';
import { createOutboxTable } from '../../sdk/bridge/outbox.js';
import { createBridgeTables, promptsPerMessage } from '../../sdk/bridge/tables.js';

export const migrations: Migration[] = [
  { name: '001_bridge_tables', up: createBridgeTables },
  { name: '002_prompts_per_message', up: promptsPerMessage },
  { name: '003_outbox', up: createOutboxTable },
];
