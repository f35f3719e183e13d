// One record per request once it is answered: method, path (never the query string, which may carry a
// ticket), status, duration, tenant, request id and the caller's address (http/client-address.ts); never a key. Records are gathered and written once
// per event-loop turn: a write to a piped stderr is synchronous on Linux, and one per request would cost
// the server's throughput. As JSON a record is at level `info` with `log: "access"` (a level name
// pino-compatible tools know); as text it reads `access`.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Koa from 'koa';
import type { AccessLogTarget } from '../config.js';
import { formatRecord, type LogFormat } from '../log.js';
import type { State } from './app.js';

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

export function accessLog(format: LogFormat, write: (text: string) => void): Koa.Middleware<State> {
  let pending: Array<{ message: string; fields: Record<string, string | number> }> = [];
  // One timestamp per turn: the records of a turn were answered within the same moment.
  const flush = () => {
    const now = new Date().toISOString();
    write(pending.map(({ message, fields }) => formatRecord(format, now, format === 'json' ? 'info' : 'access', message, fields)).join(''));
    pending = [];
  };
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (pending.length === 0) setImmediate(flush);
      // Tenths of a millisecond (Number(x.toFixed(1)) gives the same and costs more, once a request).
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const tenant = ctx.state.identity?.tenantId || '-';
      const requestId = ctx.state.requestId || '-';
      pending.push(format === 'json'
        ? { message: 'request', fields: { log: 'access', method: ctx.method, path: ctx.path, status: ctx.status, ms, tenant, requestId, client: ctx.ip } }
        : { message: `${ctx.method} ${ctx.path} ${ctx.status} ${ms.toFixed(1)}ms tenant=${tenant} id=${requestId} client=${ctx.ip}`, fields: {} });
    }
  };
}
