// The health probes, answered before koa. Load balancers, orchestrators and monitors ask /health/live,
// /health/ready and /api/health over and over, without a key or a body, and the answer reads only what
// the kernel keeps; the whole front (its context objects, the error shape, authentication, the body
// checks, the route table) would cost about half of such a request (corvid-agent, too, answers its
// health routes before its middleware). A probe still gets what every request gets: the browser guard's
// Host check, an X-Request-Id, Vary: Origin, its access log record and its metrics.
//
// Anything else goes through the whole front, which serves these paths too: credentials, a body, an
// Origin (a browser: the guard's CORS answer), a query string, a caller the rate limiter counts (the
// front takes its token), tracing (a span per request), and a probe whose answer failed (the error shape).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Kernel } from '../kernel.js';
import type { AccessLog } from './access-log.js';
import { browserPolicy, hostAllowed } from './browser-guard.js';
import { requestIdFor } from './request-id.js';
import type { HealthAnswer, HealthRoutes } from './routes/health.js';

/** What this module uses of the kernel. */
export type ProbeDeps = Pick<Kernel, 'auth' | 'config' | 'metrics' | 'tracing'>;

/** `front`: the whole front, for every request that is not a plain probe. */
export function probeFront(k: ProbeDeps, health: HealthRoutes, access: AccessLog | undefined, front: RequestListener): RequestListener {
  if (k.tracing) return front;
  const policy = browserPolicy(k.config);
  const plain = (req: IncomingMessage): boolean => {
    const { headers } = req;
    return headers.authorization === undefined && headers.origin === undefined
      && (headers['content-length'] === undefined || headers['content-length'] === '0') && headers['transfer-encoding'] === undefined
      && hostAllowed(policy, headers.host)
      // The one caller authentication exempts from the rate limit: the machine's owner, on loopback.
      && !k.config.localAuthRequired && k.auth.clients.isLocal(req);
  };
  return (req, res) => {
    const { method } = req;
    const answer = method === 'GET' || method === 'HEAD' ? health.get(req.url ?? '') : undefined;
    if (!answer || !plain(req)) return front(req, res);
    const started = performance.now();
    answer()
      .then((answered) => send(req, res, answered, started), () => front(req, res))
      .catch(() => res.destroy()); // the connection went while the answer was written
  };

  function send(req: IncomingMessage, res: ServerResponse, { status, body, retryAfter }: HealthAnswer, started: number): void {
    const method = req.method!;
    const path = req.url!;
    const given = req.headers['x-request-id'];
    const requestId = requestIdFor(typeof given === 'string' ? given : undefined);
    // One flat list of headers: no header object to build and check name by name.
    const headers = ['Vary', 'Origin', 'X-Request-Id', requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))];
    if (retryAfter !== undefined) headers.push('Retry-After', String(retryAfter));
    res.writeHead(status, headers);
    res.end(method === 'HEAD' ? undefined : body);
    k.metrics.observe(method, path, 'kernel', status, (performance.now() - started) / 1000);
    access?.record({ method, path, status, started, tenant: '-', requestId, client: k.auth.clients.of(req) });
  }
}
