// knex ships no types for its dialect modules; lib/sqlite-client.ts extends the better-sqlite3 one.
declare module 'knex/lib/dialects/better-sqlite3/index.js' {
  type Binding = string | number | bigint | Buffer | null;
  const BetterSqlite3Client: new (config: import('knex').Knex.Config) => {
    _formatBindings(bindings: unknown[] | undefined): Binding[];
  };
  export default BetterSqlite3Client;
}
