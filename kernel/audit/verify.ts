// Walks the audit chain and holds it against the signed checkpoint, reporting every break rather
// than the first: missing entries, entries whose hash or link does not follow, the newest entries
// removed (the table ends before the checkpoint), a chain recomputed after an edit or sequence
// numbers reused (the entry at the checkpoint's seq has another hash), a checkpoint file that was
// changed, forged or removed, what the kernel found wrong at earlier start-ups, and appends that failed
// (recorded in the chain as ENTRIES_LOST, or still only counted in memory and in the checkpoint).
import type { Knex } from 'knex';
import type { Checkpoint, CheckpointFile, CheckpointRead, Unrecorded } from './checkpoint.js';
import { CHECKPOINT_MISMATCH, ENTRIES_LOST, GENESIS, hashOf, type Row } from './chain.js';

export interface ChainBreak {
  seq: number;
  reason: string;
}

export interface ChainReport {
  valid: boolean;
  /** Entries examined. */
  checked: number;
  /** Every break, in order of seq. */
  breaks: ChainBreak[];
  /** The signed checkpoint the table was held against, when it is valid. */
  checkpoint: Checkpoint | null;
  /** The first break's seq and reason (kept from the first version of this report). */
  brokenAt?: number;
  reason?: string;
}

const PAGE = 1000;

/**
 * `unrecorded`: appends that failed and are not in the chain yet, as the running kernel counts them (it
 * took over the checkpoint's count at start-up, and its count is newer than the file's).
 */
export async function verifyChain(db: Knex, checkpoints: CheckpointFile, unrecorded?: Unrecorded & { reason?: string }): Promise<ChainReport> {
  // Read before the walk: rows are written before the checkpoint that covers them, so every row the
  // checkpoint vouches for is already in the table.
  const found = await checkpoints.read();
  const anchor = found.state === 'valid' ? found.checkpoint : undefined;
  const breaks: ChainBreak[] = [];
  let prev = GENESIS;
  let expected = 1;
  let checked = 0;
  let hashAtAnchor: string | undefined;
  for (let after = 0; ; ) {
    const rows = await db<Row>('audit_log').where('seq', '>', after).orderBy('seq').limit(PAGE);
    for (const row of rows) {
      checked++;
      if (row.seq > expected) breaks.push({ seq: expected, reason: missing(expected, row.seq - 1) });
      else if (row.prev_hash !== prev) breaks.push({ seq: row.seq, reason: 'previous hash does not match' });
      if (hashOf(row) !== row.hash) breaks.push({ seq: row.seq, reason: 'entry was altered' });
      if (row.action === CHECKPOINT_MISMATCH) breaks.push({ seq: row.seq, reason: `at a start-up, ${mismatchReason(row)}` });
      if (row.action === ENTRIES_LOST) breaks.push({ seq: row.seq, reason: lostReason(row) });
      if (row.seq === anchor?.seq) hashAtAnchor = row.hash;
      prev = row.hash;
      expected = row.seq + 1;
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.seq;
  }
  const last = expected - 1;
  const problem = checkpointProblem(found, last, hashAtAnchor);
  if (problem) breaks.push(problem);
  if (unrecorded) {
    const why = unrecorded.reason ? ` (${unrecorded.reason})` : '';
    breaks.push({ seq: last + 1, reason: `${entries(unrecorded.count)} could not be written since ${unrecorded.since}${why}, and are not in the log yet` });
  }
  breaks.sort((a, b) => a.seq - b.seq);
  const first = breaks[0];
  return {
    valid: breaks.length === 0,
    checked,
    breaks,
    checkpoint: anchor ?? null,
    ...(first ? { brokenAt: first.seq, reason: first.reason } : {}),
  };
}

/**
 * What is wrong between the checkpoint and a table whose newest seq is `last` and whose entry at the
 * checkpoint's seq has `hashAtAnchor` (undefined when there is no such entry); undefined when they agree.
 */
export function checkpointProblem(found: CheckpointRead, last: number, hashAtAnchor: string | undefined): ChainBreak | undefined {
  if (found.state === 'missing') return { seq: last + 1, reason: 'the checkpoint file is missing' };
  if (found.state === 'invalid') return { seq: found.claimed.seq ?? last + 1, reason: found.reason };
  const { seq, hash } = found.checkpoint;
  if (last < seq) return { seq: last + 1, reason: `${missing(last + 1, seq)} from the end of the log: the checkpoint is at ${seq}` };
  if (hashAtAnchor !== undefined && hashAtAnchor !== hash) {
    return { seq, reason: `entry ${seq} does not match the checkpoint: the chain was recomputed or its sequence numbers reused` };
  }
  return undefined;
}

function missing(from: number, to: number): string {
  return from === to ? `entry ${from} is missing` : `entries ${from}–${to} are missing`;
}

function entries(count: number): string {
  return count === 1 ? '1 audit entry' : `${count} audit entries`;
}

function lostReason(row: Row): string {
  try {
    const { count, since, until, reason } = JSON.parse(row.detail) as { count: number; since: string; until: string; reason: string };
    return `${entries(count)} could not be written between ${since} and ${until} (${reason}): they are not in the log`;
  } catch {
    return 'audit entries could not be written: they are not in the log';
  }
}

function mismatchReason(row: Row): string {
  try {
    return String((JSON.parse(row.detail) as { reason?: unknown }).reason);
  } catch {
    return 'the checkpoint did not match';
  }
}
