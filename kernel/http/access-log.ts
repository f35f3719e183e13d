// One record per request once it is answered: method, path (never the query string, which may carry a
// ticket), status, duration, tenant and request id; never a key. Records are gathered and written once
// per event-loop turn: a write to a piped stderr is synchronous on Linux, and one per request would cost
// the server's throughput.
import type Koa from 'koa';
import { formatRecord, type LogFormat } from '../log.js';
import type { State } from './app.js';

export function accessLog(format: LogFormat, write: (text: string) => void): Koa.Middleware<State> {
  let pending: Array<{ message: string; fields: Record<string, string | number> }> = [];
  // One timestamp per turn: the records of a turn were answered within the same moment.
  const flush = () => {
    const now = new Date().toISOString();
    write(pending.map(({ message, fields }) => formatRecord(format, now, 'access', message, fields)).join(''));
    pending = [];
  };
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (pending.length === 0) setImmediate(flush);
      const ms = Number((performance.now() - started).toFixed(1));
      const tenant = ctx.state.identity?.tenantId || '-';
      const requestId = ctx.response.get('X-Request-Id') || '-';
      pending.push(format === 'json'
        ? { message: 'request', fields: { method: ctx.method, path: ctx.path, status: ctx.status, ms, tenant, requestId } }
        : { message: `${ctx.method} ${ctx.path} ${ctx.status} ${ms.toFixed(1)}ms tenant=${tenant} id=${requestId}`, fields: {} });
    }
  };
}
