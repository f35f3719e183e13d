// Health snapshots: the server's health as judged at a collection — the problems its figures show (an
// extension failed or crashing, an owner answering with many 5xx, a slow event loop), each extension's
// state and the headline figures. One is stored per instance when the judgement changed (its status,
// the subjects of its problems, an extension's state) and at least hourly, so the history says when
// the server went wrong and when it came back without a row a minute.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { PromMetric, Sample } from './sampler.js';

export type HealthStatus = 'healthy' | 'degraded' | 'critical';
export const HEALTH_STATUSES: HealthStatus[] = ['healthy', 'degraded', 'critical'];

export interface Problem {
  severity: 'warning' | 'critical';
  /** What it is about: `extension:<name>`, `owner:<name>`, `kernel`. */
  subject: string;
  message: string;
}

export interface Judgement {
  status: HealthStatus;
  problems: Problem[];
  extensions: Array<{ name: string; state: string }>;
  figures: Record<string, number | null>;
}

export interface HealthSnapshot extends Judgement {
  id: string;
  /** The instance it was taken on (null with one instance, on SQLite). */
  instance: string | null;
  takenAt: string;
}

/** A share of 5xx answers from one owner at or above this is a problem. */
export const ERROR_RATE_LIMIT = 0.05;
/** An event-loop delay p99 at or above this (ms) is a problem. */
export const EVENT_LOOP_LIMIT_MS = 100;
const HOUR_MS = 3_600_000;

const value = (samples: Sample[], metric: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.metric === metric && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? null;

/** Judges one collection: the kernel's metrics (extension states) and the samples derived from them. */
export function judge(metrics: PromMetric[], samples: Sample[]): Judgement {
  const problems: Problem[] = [];
  const extensions = (metrics.find((m) => m.name === 'roost_extension_up')?.values ?? [])
    .map((v) => ({ name: String(v.labels.extension), state: String(v.labels.state) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const { name, state } of extensions) {
    if (state === 'failed') problems.push({ severity: 'critical', subject: `extension:${name}`, message: `extension ${name} failed: it crashed more often than its budget allows and is not restarted` });
    if (state === 'crashed') problems.push({ severity: 'warning', subject: `extension:${name}`, message: `extension ${name} crashed and is restarting` });
  }
  let requests = 0;
  let errors = 0;
  for (const rate of samples.filter((s) => s.metric === 'http.request_rate' && s.labels.route === '*')) {
    const share = value(samples, 'http.error_rate', rate.labels) ?? 0;
    requests += rate.value;
    errors += rate.value * share;
    if (share >= ERROR_RATE_LIMIT) problems.push({ severity: 'warning', subject: `owner:${rate.labels.owner}`, message: `${rate.labels.owner} answered ${Math.round(share * 100)}% of its requests with a 5xx` });
  }
  const delay = value(samples, 'kernel.event_loop_delay_p99_ms');
  if (delay !== null && delay >= EVENT_LOOP_LIMIT_MS) problems.push({ severity: 'warning', subject: 'kernel', message: `the kernel's event-loop delay p99 is ${Math.round(delay)} ms` });
  const status: HealthStatus = problems.some((p) => p.severity === 'critical') ? 'critical' : problems.length > 0 ? 'degraded' : 'healthy';
  return {
    status,
    problems,
    extensions,
    figures: {
      requestRate: requests,
      errorRate: requests > 0 ? errors / requests : null,
      kernelCpuPercent: value(samples, 'kernel.cpu_percent'),
      kernelMemoryBytes: value(samples, 'kernel.memory_bytes'),
      eventLoopDelayP99Ms: delay,
      wsClients: value(samples, 'ws.clients'),
      startWaitingRequests: value(samples, 'kernel.start_waiting_requests', { extension: '*' }),
      pendingExtensionRequests: value(samples, 'kernel.pending_extension_requests', { extension: '*' }),
      queuedItems: samples.filter((s) => s.metric === 'queue.depth').reduce((sum, s) => sum + s.value, 0),
    },
  };
}

/** What must differ for a new snapshot before the hour is up. */
const gist = (j: Pick<Judgement, 'status' | 'problems' | 'extensions'>) =>
  JSON.stringify([j.status, j.problems.map((p) => `${p.severity}:${p.subject}`).sort(), j.extensions]);

interface Row {
  id: string;
  instance: string;
  at: number | string;
  status: HealthStatus;
  detail: string;
}

export class HealthStore {
  constructor(private readonly db: Knex) {}

  /** Stores the judgement when it differs from the instance's last snapshot, or that one is an hour old, or `always`. */
  async record(instance: string, at: number, judgement: Judgement, always: boolean): Promise<HealthSnapshot | undefined> {
    const last = await this.db<Row>('health_snapshots').where({ instance }).orderBy('at', 'desc').first();
    if (!always && last && at - Number(last.at) < HOUR_MS && gist(toSnapshot(last)) === gist(judgement)) return undefined;
    const { status, ...detail } = judgement;
    const row: Row = { id: randomUUID(), instance, at, status, detail: JSON.stringify(detail) };
    await this.db('health_snapshots').insert(row);
    return toSnapshot(row);
  }

  /** Newest first; `instance` ('' on SQLite) and `status` filter. */
  async list(query: { instance?: string; status?: HealthStatus; from: number; to: number; limit: number; offset: number }): Promise<{ snapshots: HealthSnapshot[]; hasMore: boolean }> {
    const rows = await this.db<Row>('health_snapshots')
      .whereBetween('at', [query.from, query.to])
      .modify((q) => (query.instance !== undefined ? q.where({ instance: query.instance }) : q))
      .modify((q) => (query.status ? q.where({ status: query.status }) : q))
      .orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(query.limit + 1)
      .offset(query.offset);
    return { snapshots: rows.slice(0, query.limit).map(toSnapshot), hasMore: rows.length > query.limit };
  }

  async get(id: string): Promise<HealthSnapshot | undefined> {
    const row = await this.db<Row>('health_snapshots').where({ id }).first();
    return row && toSnapshot(row);
  }

  /** The latest snapshot of each instance given. */
  async latest(instances: string[]): Promise<HealthSnapshot[]> {
    const found = await Promise.all(instances.map((instance) => this.db<Row>('health_snapshots').where({ instance }).orderBy('at', 'desc').first()));
    return found.filter((row): row is Row => row !== undefined).map(toSnapshot);
  }
}

function toSnapshot(row: Row): HealthSnapshot {
  const detail = JSON.parse(row.detail) as Omit<Judgement, 'status'>;
  return { id: row.id, instance: row.instance === '' ? null : row.instance, takenAt: new Date(Number(row.at)).toISOString(), status: row.status, ...detail };
}
