// One record per request once it is answered: method, path (never the query string, which may carry a
// ticket), status, duration, tenant, request id and the caller's address (http/client-address.ts); never a key. Records are gathered and written once
// per event-loop turn: a write to a piped stderr is synchronous on Linux, and one per request would cost
// the server's throughput. As JSON a record is at level `info` with `log: "access"` (a level name
// pino-compatible tools know); as text it reads `access`.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AccessLogTarget } from '../config.js';
import { formatRecord, type LogFormat } from '../log.js';

/** The writer of a target that is not `off`: stderr, or a file appended to (its folder made first). */
export function accessLogWriter(target: Exclude<AccessLogTarget, { to: 'off' }>, log: (level: string, message: string) => void): (text: string) => void {
  if (target.to === 'stderr') return (text) => process.stderr.write(text);
  mkdirSync(dirname(target.path), { recursive: true });
  const file = createWriteStream(target.path, { flags: 'a' });
  // A file that cannot be written (a full disk) silences the access log, said once, never the server.
  file.once('error', (err) => log('warn', `access log ${target.path}: ${err.message}; access lines are no longer written`));
  return (text) => {
    if (!file.errored) file.write(text);
  };
}

/** One answered request as the access log records it. */
export interface AccessRecord {
  method: string;
  path: string;
  status: number;
  /** When the request came in (performance.now()). */
  started: number;
  tenant: string;
  requestId: string;
  client: string;
}

/** The access log of every front that answers requests (koa's envelope, the fast front): one batch per turn. */
export class AccessLog {
  /** JSON: each record's fields; text: each line without its timestamp and level. */
  private pending: Array<Record<string, string | number> | string> = [];

  constructor(private readonly format: LogFormat, private readonly write: (text: string) => void) {}

  record(r: AccessRecord): void {
    if (this.pending.length === 0) setImmediate(this.flush);
    // Tenths of a millisecond (Number(x.toFixed(1)) gives the same and costs more, once a request).
    const ms = Math.round((performance.now() - r.started) * 10) / 10;
    this.pending.push(this.format === 'json'
      ? { log: 'access', method: r.method, path: r.path, status: r.status, ms, tenant: r.tenant, requestId: r.requestId, client: r.client }
      : `${r.method} ${r.path} ${r.status} ${ms.toFixed(1)}ms tenant=${r.tenant} id=${r.requestId} client=${r.client}`);
  }

  // One timestamp per turn: the records of a turn were answered within the same moment. Text lines are
  // joined in one go (formatRecord's line, made for a whole turn at once).
  private readonly flush = (): void => {
    const now = new Date().toISOString();
    const pending = this.pending;
    this.pending = [];
    if (this.format === 'json') return this.write(pending.map((fields) => formatRecord('json', now, 'info', 'request', fields as Record<string, string | number>)).join(''));
    const prefix = `${now} access `;
    this.write(`${prefix}${pending.join(`\n${prefix}`)}\n`);
  };
}
