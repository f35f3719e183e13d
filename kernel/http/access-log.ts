// One line per request once it is answered: method, path (never the query string, which may carry a
// ticket), status, duration, tenant and request id; never a key. Lines are gathered and written once per
// event-loop turn: a write to a piped stderr is synchronous on Linux, and one per request would cost
// the server's throughput.
import type Koa from 'koa';
import type { State } from './app.js';

export function accessLog(write: (text: string) => void): Koa.Middleware<State> {
  let pending: string[] = [];
  // One timestamp per turn: the lines of a turn were answered within the same moment.
  const flush = () => {
    const now = new Date().toISOString();
    write(pending.map((line) => now + line).join(''));
    pending = [];
  };
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (pending.length === 0) setImmediate(flush);
      const tenant = ctx.state.identity?.tenantId || '-';
      pending.push(` access ${ctx.method} ${ctx.path} ${ctx.status} ${(performance.now() - started).toFixed(1)}ms tenant=${tenant} id=${ctx.response.get('X-Request-Id') || '-'}\n`);
    }
  };
}
