// Reads and writes a SQLite file the server owns (its kernel.sqlite, an extension's db, a backup copy)
// straight from the test, with better-sqlite3, to check or tamper with what is really stored.
import Database from 'better-sqlite3';

/** Runs one SELECT (read-only connection; safe while the server runs in WAL mode). */
export async function selectRows(file: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(params);
  } finally {
    db.close();
  }
}

/** Runs one statement that changes the file; returns the number of rows changed. Only with the server stopped. */
export async function changeRows(file: string, sql: string, params: unknown[] = []): Promise<number> {
  const db = new Database(file, { fileMustExist: true });
  try {
    return db.prepare(sql).run(params).changes;
  } finally {
    db.close();
  }
}
