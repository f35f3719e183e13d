// A SQLite WAL checkpointed when its writes pause, not in the middle of a burst. SQLite checkpoints
// inside the commit that takes the WAL past `wal_autocheckpoint`, and syncs the WAL and the database
// file there (under `synchronous = NORMAL` too): a few milliseconds in which the process's event loop
// waits, once every few dozen commits at a 1 MiB bound. With a larger bound (lib/storage.ts) a burst
// runs through without them, and once the connection has written nothing for QUIET_MS its WAL is
// copied into the database and emptied here.
import type { Database } from 'better-sqlite3';

/** How long a connection writes nothing before its WAL is checkpointed. */
export const QUIET_MS = 1_000;

const waiting = new WeakMap<Database, NodeJS.Timeout>();

/** `db` has just written: its checkpoint waits until it has been quiet for QUIET_MS. */
export function wrote(db: Database): void {
  const timer = waiting.get(db);
  if (timer) {
    timer.refresh();
    return;
  }
  waiting.set(db, setTimeout(() => checkpoint(db), QUIET_MS).unref());
}

function checkpoint(db: Database): void {
  waiting.delete(db);
  if (!db.open) return;
  // A transaction still open (it awaits something between its statements) is let finish first.
  if (db.inTransaction) return wrote(db);
  // Never waits: a reader or writer elsewhere (another process, a backup) only makes it copy what it can.
  // TRUNCATE empties the WAL file when everything was copied.
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // The next commit past the bound checkpoints anyway; a failure here (a full disk) loses nothing.
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
