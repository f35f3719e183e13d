// An extension renamed by a new release ([plugin] renamed_from in plugin.toml) keeps what the server
// holds for it under its former name: its data folder (<data>/extensions/<name>/, the SQLite file named
// after it), its PostgreSQL schema and login role, and the kernel's rows keyed by its name (grants,
// where it was loaded from, its key-value store). Carried once, before the extensions are registered;
// each step does nothing once done, so a restart (or a second instance) repeats none of it. The audit
// log keeps the name of the time. The sealing key stays the oldest name's (server.ts), so what the
// extension sealed still opens.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { ServerConfig } from '../config.js';
import type { Manifest } from '../host/manifest.js';
import { isPostgres } from './provision.js';
import { advisoryKey } from '../../lib/storage.js';
import { extensionSchema, roleName } from './pg-roles.js';

/** The kernel's tables that name an extension, and the column that does. */
const KEYED_BY_EXTENSION = [['extension_grants', 'extension'], ['extension_sources', 'name'], ['plugin_kv', 'plugin']] as const;

/** Carries each renamed extension's data from its former names; answers what it carried ("feed → activity"). */
export async function carryRenamedExtensions(config: ServerConfig, kernelDb: Knex, manifests: Manifest[]): Promise<string[]> {
  const carried: string[] = [];
  for (const manifest of manifests) {
    for (const former of manifest.renamedFrom ?? []) {
      if (former === manifest.name) continue;
      const moved = [
        !isPostgres(config) && (await carryFolder(config.dataDir, former, manifest.name)),
        isPostgres(config) && (await carrySchema(kernelDb, former, manifest.name)),
        await carryRows(kernelDb, former, manifest.name),
      ];
      if (moved.some(Boolean)) carried.push(`${former} → ${manifest.name}`);
    }
  }
  return carried;
}

/** <data>/extensions/<former>/ becomes <data>/extensions/<name>/, its <former>.sqlite (and WAL) <name>.sqlite. */
async function carryFolder(dataDir: string, former: string, name: string): Promise<boolean> {
  const from = join(dataDir, 'extensions', former);
  const to = join(dataDir, 'extensions', name);
  if (!existsSync(from) || existsSync(join(to, `${name}.sqlite`))) return false;
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from)) {
    const target = entry.startsWith(`${former}.sqlite`) ? `${name}${entry.slice(former.length)}` : entry;
    if (!existsSync(join(to, target))) await rename(join(from, entry), join(to, target));
  }
  await rmdir(from).catch(() => undefined); // something the new name already had is left beside
  return true;
}

/** Schema roost_ext_<former> and its role become <name>'s, under the lock provisioning takes. */
async function carrySchema(kernelDb: Knex, former: string, name: string): Promise<boolean> {
  const [fromSchema, toSchema] = [extensionSchema(former), extensionSchema(name)];
  return kernelDb.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey('roost:provision'));
    const has = async (schema: string) => (await trx.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_namespace WHERE nspname = ?', [schema])).rows.length > 0;
    if (!(await has(fromSchema)) || (await has(toSchema))) return false;
    const { rows } = await trx.raw<{ rows: Array<{ db: string }> }>('SELECT current_database() AS db');
    const [fromRole, toRole] = [roleName(fromSchema, rows[0]!.db), roleName(toSchema, rows[0]!.db)];
    await trx.raw('ALTER SCHEMA ?? RENAME TO ??', [fromSchema, toSchema]);
    const roleExists = async (role: string) => (await trx.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_roles WHERE rolname = ?', [role])).rows.length > 0;
    // Provisioning sets the password and search path again (a rename clears an MD5 password).
    if ((await roleExists(fromRole)) && !(await roleExists(toRole))) await trx.raw('ALTER ROLE ?? RENAME TO ??', [fromRole, toRole]);
    return true;
  });
}

/** The kernel's rows under the former name, unless the new name has rows of its own already. */
async function carryRows(kernelDb: Knex, former: string, name: string): Promise<boolean> {
  return kernelDb.transaction(async (trx) => {
    let moved = false;
    for (const [table, column] of KEYED_BY_EXTENSION) {
      if (await trx(table).where(column, name).first()) continue;
      moved = (await trx(table).where(column, former).update({ [column]: name })) > 0 || moved;
    }
    return moved;
  });
}
