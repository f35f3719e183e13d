// Reads and writes a SQLite file the server owns (its kernel.sqlite, an extension's db, a backup copy)
// straight from the test, with the sqlite3 package, to check or tamper with what is really stored.
import sqlite3 from 'sqlite3';

function open(file: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}

/** Runs one SELECT (read-only connection; safe while the server runs in WAL mode). */
export async function selectRows(file: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const db = await open(file, sqlite3.OPEN_READONLY);
  try {
    return await new Promise((resolve, reject) => db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))));
  } finally {
    await close(db);
  }
}

/** Runs one statement that changes the file; returns the number of rows changed. Only with the server stopped. */
export async function changeRows(file: string, sql: string, params: unknown[] = []): Promise<number> {
  const db = await open(file, sqlite3.OPEN_READWRITE);
  try {
    return await new Promise((resolve, reject) =>
      db.run(sql, params, function done(this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve(this.changes);
      }),
    );
  } finally {
    await close(db);
  }
}
