// An extension's own corner of a PostgreSQL database: schema roost_ext_<name>, owned by a login role of
// its own that can connect to this database and reach nothing but that schema. The role's password is
// derived (HMAC) from a secret kept in the kernel's schema, so every instance computes the same one and
// the admin URL never leaves the kernel.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { StorageInfo } from '../../protocol/messages.js';
import { advisoryKey } from '../../lib/storage.js';

export const KERNEL_SCHEMA = 'roost_kernel';
const SECRET_NAME = 'pg_role_secret';
/** PostgreSQL truncates identifiers past 63 bytes; a name that long is refused instead. */
const MAX_IDENTIFIER = 63;

export function extensionSchema(name: string): string {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) throw new RoostError('VALIDATION_ERROR', `extension name "${name}" cannot name a PostgreSQL schema`);
  return `roost_ext_${name.replace(/-/g, '_')}`;
}

/**
 * Roles belong to the whole PostgreSQL cluster, schemas to one database: the role's name carries a
 * digest of the database's, so two Roost databases on one cluster never share (or reset) a role.
 */
export function roleName(schema: string, database: string): string {
  const role = `${schema}_${createHash('sha256').update(database).digest('hex').slice(0, 8)}`;
  if (role.length > MAX_IDENTIFIER) throw new RoostError('VALIDATION_ERROR', `extension schema "${schema}" is too long for a PostgreSQL role name`);
  return role;
}

/**
 * The kernel's schema, and the database closed to everyone not given a way in (by default PUBLIC may
 * connect, make temporary tables and use `public`): each extension's role is then granted exactly its own.
 */
export async function prepareDatabase(admin: Knex): Promise<void> {
  await admin.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey('roost:provision'));
    await trx.raw('CREATE SCHEMA IF NOT EXISTS ??', [KERNEL_SCHEMA]);
    const database = (await trx.raw<{ rows: Array<{ db: string }> }>('SELECT current_database() AS db')).rows[0]!.db;
    await trx.raw('REVOKE ALL ON DATABASE ?? FROM PUBLIC', [database]);
    await trx.raw('REVOKE ALL ON SCHEMA public FROM PUBLIC');
  });
}

/** A secret of the kernel's, the same on every instance: made by whichever instance asks first. */
export async function kernelSecret(kernelDb: Knex, name: string): Promise<string> {
  await kernelDb('server_secrets').insert({ name, value: randomBytes(32).toString('hex'), created_at: new Date().toISOString() }).onConflict('name').ignore();
  const row = await kernelDb('server_secrets').where({ name }).first<{ value: string }>();
  return row!.value;
}

/** The kernel's secret for role passwords. */
const roleSecret = (kernelDb: Knex) => kernelSecret(kernelDb, SECRET_NAME);

/**
 * Creates (or brings up to date) the extension's role and schema and returns the storage its init
 * carries: the role's own connection, never the admin's. Serialised across instances by an advisory
 * lock, since concurrent role and grant changes fail in PostgreSQL ("tuple concurrently updated").
 */
export async function provisionExtension(kernelDb: Knex, adminUrl: string, extension: string, socketDir?: string): Promise<StorageInfo> {
  const schema = extensionSchema(extension);
  const secret = await roleSecret(kernelDb);
  const { default: pg } = await import('pg'); // only a server on PostgreSQL loads the driver
  return kernelDb.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey('roost:provision'));
    const { rows } = await trx.raw<{ rows: Array<{ db: string; superuser: boolean }> }>(
      "SELECT current_database() AS db, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser",
    );
    const database = rows[0]!.db;
    const role = roleName(schema, database);
    const password = createHmac('sha256', secret).update(`${database}/${role}`).digest('hex');
    const exists = (await trx.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_roles WHERE rolname = ?', [role])).rows.length > 0;
    if (!exists) {
      await trx.raw('CREATE ROLE ?? LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', [role]);
      // A non-superuser admin (CREATEROLE, owner of the database) must be a member to hand it a schema.
      if (!rows[0]!.superuser) await trx.raw('GRANT ?? TO CURRENT_USER', [role]);
    }
    // Utility statements take no bind parameters: the password goes in as a literal quoted by the driver.
    await trx.raw(`ALTER ROLE ?? PASSWORD ${pg.escapeLiteral(password)}`, [role]);
    await trx.raw('ALTER ROLE ?? SET search_path TO ??', [role, schema]);
    await trx.raw('GRANT CONNECT ON DATABASE ?? TO ??', [database, role]);
    await trx.raw('CREATE SCHEMA IF NOT EXISTS ?? AUTHORIZATION ??', [schema, role]);
    await trx.raw('ALTER SCHEMA ?? OWNER TO ??', [schema, role]);
    const url = new URL(adminUrl);
    url.username = role;
    url.password = password;
    // Through the kernel's relay (pg-relay.ts): a socket folder as the host, the server's port names the socket.
    if (socketDir) url.searchParams.set('host', socketDir);
    return { client: 'pg', connection: url.toString(), schema };
  });
}
