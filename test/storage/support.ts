// The storage suites run the same assertions on both stores: SQLite in the data dir, and a fresh
// database on this file's real test PostgreSQL.
import pg from 'pg';
import { sharedPostgres } from '../helpers/postgres.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

/** The environment that puts a new server on `store` ("" keeps SQLite even under ROOST_TEST_POSTGRES=1). */
export async function storeEnv(store: Store): Promise<{ ROOST_DATABASE_URL: string }> {
  return { ROOST_DATABASE_URL: store === 'postgres' ? await (await sharedPostgres()).createDatabase() : '' };
}

/** Runs `fn` on a connection to `url` and closes it. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
