// The voice cache: speech audio keyed by (model, voice, text) per tenant, reused instead of asking the
// text-to-speech API again, capped in bytes over all tenants (ROOST_EXT_DISCORD_VOICE_CACHE_MAX_BYTES, default
// 64 MiB) by evicting the least recently used entries first.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

export interface CachedAudio {
  audio: Buffer;
  contentType: string;
}

export interface VoiceCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

export const voiceKey = (model: string, voice: string, text: string): string => createHash('sha256').update(JSON.stringify([model, voice, text])).digest('hex');

export class VoiceCache {
  private lastUse = 0;

  constructor(
    private readonly db: Knex,
    readonly maxBytes: number,
  ) {}

  async get(tenantId: string, key: string): Promise<CachedAudio | undefined> {
    const row = await this.db('voice_cache').where({ tenant_id: tenantId, cache_key: key }).first('audio', 'content_type');
    await this.count(tenantId, row ? 'hits' : 'misses');
    if (!row) return undefined;
    await this.db('voice_cache').where({ tenant_id: tenantId, cache_key: key }).update({ used_at: this.useTime(), hits: this.db.raw('hits + 1') });
    return { audio: Buffer.from(row.audio), contentType: row.content_type };
  }

  async put(tenantId: string, key: string, entry: CachedAudio): Promise<void> {
    if (entry.audio.length > this.maxBytes) return;
    await this.db('voice_cache')
      .insert({ tenant_id: tenantId, cache_key: key, bytes: entry.audio.length, audio: entry.audio, content_type: entry.contentType, created_at: new Date().toISOString(), used_at: this.useTime() })
      .onConflict(['tenant_id', 'cache_key'])
      .ignore();
    await this.evict();
  }

  async stats(tenantId: string): Promise<VoiceCacheStats> {
    const sizes = await this.db('voice_cache').where({ tenant_id: tenantId }).count({ entries: '*' }).sum({ bytes: 'bytes' }).first();
    const counters = await this.db('voice_stats').where({ tenant_id: tenantId }).first();
    return {
      entries: Number(sizes?.entries ?? 0),
      bytes: Number(sizes?.bytes ?? 0),
      maxBytes: this.maxBytes,
      hits: Number(counters?.hits ?? 0),
      misses: Number(counters?.misses ?? 0),
      evictions: Number(counters?.evictions ?? 0),
    };
  }

  /** Drops least recently used entries until the whole cache fits its cap. */
  private async evict(): Promise<void> {
    let total = Number((await this.db('voice_cache').sum({ bytes: 'bytes' }).first())?.bytes ?? 0);
    while (total > this.maxBytes) {
      const oldest = await this.db('voice_cache').orderBy('used_at', 'asc').first('tenant_id', 'cache_key', 'bytes');
      if (!oldest) return;
      const removed = await this.db('voice_cache').where({ tenant_id: oldest.tenant_id, cache_key: oldest.cache_key }).delete();
      if (removed) await this.count(oldest.tenant_id, 'evictions');
      total -= Number(oldest.bytes);
    }
  }

  private async count(tenantId: string, field: 'hits' | 'misses' | 'evictions'): Promise<void> {
    await this.db('voice_stats').insert({ tenant_id: tenantId, hits: 0, misses: 0, evictions: 0 }).onConflict('tenant_id').ignore();
    await this.db('voice_stats').where({ tenant_id: tenantId }).increment(field, 1);
  }

  private useTime(): number {
    this.lastUse = Math.max(Date.now(), this.lastUse + 1);
    return this.lastUse;
  }
}
