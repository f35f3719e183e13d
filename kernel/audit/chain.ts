// The audit chain's rows and hash: each entry's hash covers its own fields and the previous entry's
// hash, so editing, deleting or reordering any row breaks the chain from that row on.
import { createHash } from 'node:crypto';

export const GENESIS = '0'.repeat(64);

/** Written by the kernel when, at start-up, the table does not agree with the checkpoint (see checkpoint.ts). */
export const CHECKPOINT_MISMATCH = 'audit.checkpoint_mismatch';

/** Written by the kernel as soon as it can after appends failed: how many entries were lost, when, and why. */
export const ENTRIES_LOST = 'audit.entries_lost';

export interface Row {
  seq: number;
  ts: string;
  tenant_id: string | null;
  actor: string;
  action: string;
  resource: string;
  detail: string;
  prev_hash: string;
  hash: string;
}

export function hashOf(row: Omit<Row, 'hash'>): string {
  const fields = [row.seq, row.ts, row.tenant_id, row.actor, row.action, row.resource, row.detail];
  return createHash('sha256').update(`${row.prev_hash}\n${JSON.stringify(fields)}`).digest('hex');
}
