// An agent's observations: small sealed notes with a score. Recording the same note again or boosting
// it reinforces it (score up, one more access); once both pass the tenant's thresholds it graduates
// into a memory (key "observation:<id>"), and the observation records that and the key.
import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Keyring } from './keyring.js';
import { saveMemory, type AgentRef } from './memories.js';
import type { MemorySealer } from './sealing.js';
import { readSettings } from './settings.js';
import { wordsOf } from './words.js';

export const STATUSES = ['active', 'graduated', 'dismissed'] as const;
export type ObservationStatus = (typeof STATUSES)[number];

export interface Observation {
  id: string;
  content: string;
  source: string | null;
  tags: string[];
  score: number;
  accessCount: number;
  status: ObservationStatus;
  memoryKey: string | null;
  graduatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  body_enc: string;
  score: number;
  access_count: number;
  status: ObservationStatus;
  memory_key: string | null;
  graduated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ObservationInput {
  content: string;
  source?: string;
  tags?: string[];
}

const INITIAL_SCORE = 1;
const COLUMNS = ['id', 'body_enc', 'score', 'access_count', 'status', 'memory_key', 'graduated_at', 'created_at', 'updated_at'];

export class Observations {
  private constructor(
    private readonly ctx: ExtensionContext,
    private readonly keyring: Keyring,
    private readonly sealer: MemorySealer,
    private readonly agent: AgentRef,
  ) {}

  static async of(ctx: ExtensionContext, keyring: Keyring, agent: AgentRef): Promise<Observations> {
    return new Observations(ctx, keyring, await keyring.sealer(), agent);
  }

  /** A new observation, or the active one saying the same words reinforced. */
  async record(input: ObservationInput): Promise<{ observation: Observation; reinforced: boolean }> {
    const hash = this.sealer.lookupHash(wordsOf(input.content).join(' ') || input.content, this.scope);
    const same = await this.ctx.db('observations').where({ ...this.mine, content_hash: hash, status: 'active' }).first('id');
    if (same) return { observation: await this.reinforce(same.id as string, INITIAL_SCORE), reinforced: true };
    const id = randomUUID();
    const now = new Date().toISOString();
    const body = { content: input.content, source: input.source ?? null, tags: input.tags ?? [] };
    await this.ctx.db('observations').insert({
      id, ...this.mine, body_enc: this.sealer.seal(JSON.stringify(body), this.context(id)), content_hash: hash,
      score: INITIAL_SCORE, access_count: 0, status: 'active', created_at: now, updated_at: now,
    });
    return { observation: await this.mustGet(id), reinforced: false };
  }

  async boost(id: string, amount: number): Promise<Observation> {
    const current = await this.mustGet(id);
    if (current.status !== 'active') throw conflict(`observation ${id} is ${current.status}${current.memoryKey ? ` (memory "${current.memoryKey}")` : ''}; only active observations can be boosted`);
    return this.reinforce(id, amount);
  }

  async dismiss(id: string): Promise<Observation> {
    const current = await this.mustGet(id);
    if (current.status === 'graduated') throw conflict(`observation ${id} has graduated into memory "${current.memoryKey}"; delete that memory instead`);
    await this.ctx.db('observations').where({ ...this.mine, id }).update({ status: 'dismissed', updated_at: new Date().toISOString() });
    return this.mustGet(id);
  }

  async list(status: ObservationStatus | 'all', limit: number, offset: number): Promise<{ observations: Observation[]; hasMore: boolean }> {
    const filter = status === 'all' ? '' : ' AND status = ?';
    const params = [this.agent.tenantId, this.agent.agentId, ...(status === 'all' ? [] : [status]), limit + 1, offset];
    const rows = await this.ctx.sql.all<Row>(`SELECT ${COLUMNS.join(', ')} FROM observations WHERE tenant_id = ? AND agent_id = ?${filter} ORDER BY score DESC, updated_at DESC, id LIMIT ? OFFSET ?`, params);
    return { observations: rows.slice(0, limit).map((r) => this.toObservation(r)), hasMore: rows.length > limit };
  }

  async stats(): Promise<Record<string, unknown>> {
    const rows = await this.ctx.sql.all<{ status: ObservationStatus; n: number; score: number | null; accesses: number | null }>(
      'SELECT status, COUNT(*) AS n, AVG(score) AS score, SUM(access_count) AS accesses FROM observations WHERE tenant_id = ? AND agent_id = ? GROUP BY status',
      [this.agent.tenantId, this.agent.agentId],
    );
    const by = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<ObservationStatus, number>;
    for (const row of rows) by[row.status] = Number(row.n);
    const active = rows.find((r) => r.status === 'active');
    const settings = await readSettings(this.ctx, this.agent.tenantId);
    return {
      total: by.active + by.graduated + by.dismissed,
      ...by,
      averageActiveScore: active?.score == null ? null : Number(active.score),
      activeAccesses: Number(active?.accesses ?? 0),
      thresholds: { score: settings.observationScoreThreshold, accessCount: settings.observationAccessThreshold },
    };
  }

  private async reinforce(id: string, amount: number): Promise<Observation> {
    await this.ctx.db('observations').where({ ...this.mine, id, status: 'active' }).update({
      score: this.ctx.db.raw('score + ?', [amount]),
      access_count: this.ctx.db.raw('access_count + 1'),
      updated_at: new Date().toISOString(),
    });
    const observation = await this.mustGet(id);
    const settings = await readSettings(this.ctx, this.agent.tenantId);
    if (observation.status !== 'active' || observation.score < settings.observationScoreThreshold || observation.accessCount < settings.observationAccessThreshold) {
      return observation;
    }
    return this.graduate(observation);
  }

  /**
   * Exactly once even when two reinforcements race: only the write that flips the status saves the
   * memory. Both happen in one transaction: a memory that cannot be saved leaves the observation active.
   */
  private async graduate(observation: Observation): Promise<Observation> {
    const memoryKey = `observation:${observation.id}`;
    const graduated = await this.ctx.db.transaction(async (trx) => {
      const flipped = await trx('observations').where({ ...this.mine, id: observation.id, status: 'active' })
        .update({ status: 'graduated', memory_key: memoryKey, graduated_at: new Date().toISOString() });
      if (flipped === 0) return false;
      await saveMemory(this.ctx, this.keyring, this.agent, memoryKey, observation.content, trx);
      return true;
    });
    if (graduated) this.ctx.host.audit('observation.graduated', `agent:${this.agent.agentId}`, { observationId: observation.id, memoryKey });
    return this.mustGet(observation.id);
  }

  private async mustGet(id: string): Promise<Observation> {
    const row = await this.ctx.db('observations').where({ ...this.mine, id }).first(...COLUMNS);
    if (!row) throw notFound(`observation ${id}`);
    return this.toObservation(row as Row);
  }

  private get mine() {
    return { tenant_id: this.agent.tenantId, agent_id: this.agent.agentId };
  }

  private get scope(): string {
    return `observations\0${this.agent.tenantId}\0${this.agent.agentId}`;
  }

  private context(id: string): string {
    return `${this.scope}\0${id}`;
  }

  private toObservation(row: Row): Observation {
    const body = JSON.parse(this.sealer.open(row.body_enc, this.context(row.id))) as { content: string; source: string | null; tags: string[] };
    return {
      id: row.id,
      ...body,
      score: Number(row.score),
      accessCount: Number(row.access_count),
      status: row.status,
      memoryKey: row.memory_key,
      graduatedAt: row.graduated_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
