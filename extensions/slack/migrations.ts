import type { Migration } from '../../protocol/storage.js';
import { createBridgeTables } from '../_shared/bridge/tables.js';

export const migrations: Migration[] = [{ name: '001_bridge_tables', up: createBridgeTables }];
