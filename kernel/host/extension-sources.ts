// What the kernel database remembers of extensions across restarts: which folder each was loaded from
// and whether it is loaded (extension_sources), and each one's grants (extension_grants).
import { join, sep } from 'node:path';
import type { Knex } from 'knex';
import { packageRoot } from '../../lib/paths.js';
import type { Manifest } from './manifest.js';

/** An extension that ships with the server (its folder under the package's extensions/). */
export function isBundled(manifest: Pick<Manifest, 'dir'>): boolean {
  return manifest.dir.startsWith(join(packageRoot, 'extensions') + sep);
}

export interface ExtensionSource {
  name: string;
  dir: string;
  loaded: number | boolean;
}

export class ExtensionSources {
  constructor(private readonly db: Knex) {}

  all(): Promise<ExtensionSource[]> {
    return this.db('extension_sources').select('name', 'dir', 'loaded');
  }

  async remember(name: string, dir: string, loaded: boolean): Promise<void> {
    await this.db('extension_sources').insert({ name, dir, loaded, updated_at: new Date().toISOString() }).onConflict('name').merge();
  }

  /**
   * The grants kept for an extension (a pre-split `system` grant split by what it asks for); undefined when
   * it was never registered. A bundled extension ships with the server, so what its manifest asks for in a
   * newer version is granted on upgrade, unless an operator revoked it (a row that says not granted).
   */
  async grants(manifest: Pick<Manifest, 'name' | 'dir' | 'capabilities'>): Promise<Set<string> | undefined> {
    const { name, capabilities: asked } = manifest;
    const rows: Array<{ capability: string; granted: number | boolean }> = await this.db('extension_grants').where({ extension: name });
    if (rows.length === 0) return undefined;
    const held = await splitSystemGrant(this.db, name, new Set(rows.filter((r) => Boolean(r.granted)).map((r) => r.capability)), asked);
    if (!isBundled(manifest)) return held;
    const decided = new Set(rows.map((r) => r.capability));
    const added = new Set(Object.entries(asked).filter(([capability, wanted]) => wanted && !decided.has(capability) && !held.has(capability)).map(([capability]) => capability));
    await this.grantFirst(name, added);
    return new Set([...held, ...added]);
  }

  async setGrant(extension: string, capability: string, granted: boolean): Promise<void> {
    await this.db('extension_grants').insert({ extension, capability, granted, updated_at: new Date().toISOString() }).onConflict(['extension', 'capability']).merge();
  }

  /** On first sight: what its manifest asks for, unless something was stored meanwhile. */
  async grantFirst(extension: string, capabilities: Set<string>): Promise<void> {
    if (capabilities.size === 0) return;
    const now = new Date().toISOString();
    await this.db('extension_grants')
      .insert([...capabilities].map((capability) => ({ extension, capability, granted: true, updated_at: now })))
      .onConflict(['extension', 'capability']).ignore();
  }
}

/**
 * `system` was one grant for three powers (restart the server, read the kernel's metrics, change
 * tenants); each is its own capability now. A grant of `system` stored before the split becomes the
 * ones of the three the extension's manifest asks for, so an upgraded server gives each what it uses.
 */
const SPLIT_FROM_SYSTEM = ['restart', 'metrics', 'tenants'];

async function splitSystemGrant(db: Knex, extension: string, stored: Set<string>, asked: Record<string, boolean>): Promise<Set<string>> {
  if (!stored.has('system')) return stored;
  const given = SPLIT_FROM_SYSTEM.filter((capability) => asked[capability]);
  const now = new Date().toISOString();
  await db.transaction(async (trx) => {
    await trx('extension_grants').where({ extension, capability: 'system' }).delete();
    if (given.length > 0) {
      await trx('extension_grants').insert(given.map((capability) => ({ extension, capability, granted: true, updated_at: now }))).onConflict(['extension', 'capability']).merge(['granted', 'updated_at']);
    }
  });
  return new Set([...[...stored].filter((capability) => capability !== 'system'), ...given]);
}
