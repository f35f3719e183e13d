// Requests answered before koa. Two kinds come over and over from the machine's owner (on loopback, no
// key): the health probes, which load balancers, orchestrators and monitors ask, and reads the response
// cache holds (dispatch.ts), which a dashboard or a script repeats. Their answers read only what the
// kernel keeps, and the whole front (its context objects, the error shape, authentication, the body
// checks) would cost about half of such a request; corvid-agent, too, answers its health routes before
// its middleware. They still get what every request gets: the browser guard's Host check, an
// X-Request-Id, Vary: Origin, an access log record and metrics under their route.
//
// Anything else goes through the whole front, which serves these paths too: credentials, a body, an
// Origin (a browser: the guard's CORS answer), a caller the rate limiter counts (the front takes its
// token), tracing (a span per request), a probe with a query or whose answer failed (the error shape), a
// read the cache does not hold (the front dispatches it and keeps the answer), and a kept answer that
// carries headers of its own or is not JSON.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { localOwner } from '../auth/identity.js';
import type { Kernel } from '../kernel.js';
import type { AccessLog } from './access-log.js';
import { browserPolicy, hostAllowed } from './browser-guard.js';
import { requestIdFor } from './request-id.js';
import type { HealthRoutes } from './routes/health.js';

/** What this module uses of the kernel. */
export type FastFrontDeps = Pick<Kernel, 'auth' | 'config' | 'dispatcher' | 'metrics' | 'tracing'>;

interface Answer {
  status: number;
  body: string | Buffer;
  retryAfter?: number;
}

/** `front`: the whole front, for every request not answered here. */
export function fastFront(k: FastFrontDeps, health: HealthRoutes, access: AccessLog | undefined, front: RequestListener): RequestListener {
  if (k.tracing) return front;
  const policy = browserPolicy(k.config);
  const owner = localOwner();
  const plain = (req: IncomingMessage): boolean => {
    const { headers } = req;
    return headers.authorization === undefined && headers.origin === undefined
      && (headers['content-length'] === undefined || headers['content-length'] === '0') && headers['transfer-encoding'] === undefined
      && hostAllowed(policy, headers.host)
      // The one caller authentication exempts from the rate limit: the machine's owner, on loopback.
      && !k.config.localAuthRequired && k.auth.clients.isLocal(req);
  };

  /** The cache's answer to the owner's GET, as the whole front would send it (serveExtensionRoute in app.ts). */
  const kept = (url: string): (Answer & { path: string; route: string; owner: string }) | undefined => {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const route = k.dispatcher.match('GET', path);
    if (!route || route.decl.internal || route.decl.public) return undefined;
    const reply = k.dispatcher.kept(route, owner, 'GET', path, query < 0 ? '' : url.slice(query + 1));
    const body = reply?.attachment;
    if (!reply || reply.status !== 200 || reply.headers !== undefined || reply.encoding === 'text' || !body || body.length === 0) return undefined;
    return { status: 200, body, path, route: route.decl.path, owner: route.owner };
  };

  return (req, res) => {
    const { method } = req;
    if (method !== 'GET' && method !== 'HEAD') return front(req, res);
    const url = req.url ?? '';
    const probe = health.get(url);
    if (probe) {
      if (!plain(req)) return front(req, res);
      const started = performance.now();
      probe()
        .then((answered) => send(req, res, answered, started, url, 'kernel', url, '-'), () => front(req, res))
        .catch(() => res.destroy()); // the connection went while the answer was written
      return;
    }
    const started = performance.now();
    const answer = method === 'GET' && plain(req) ? kept(url) : undefined;
    if (!answer) return front(req, res);
    send(req, res, answer, started, answer.route, answer.owner, answer.path, owner.tenantId);
  };

  /** `route` and `owner`: what the metrics count it under; `path` and `tenant`: what the access log records. */
  function send(req: IncomingMessage, res: ServerResponse, { status, body, retryAfter }: Answer, started: number, route: string, owner: string, path: string, tenant: string): void {
    const method = req.method!;
    const given = req.headers['x-request-id'];
    const requestId = requestIdFor(typeof given === 'string' ? given : undefined);
    // One flat list of headers: no header object to build and check name by name.
    const headers = ['Vary', 'Origin', 'X-Request-Id', requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))];
    if (retryAfter !== undefined) headers.push('Retry-After', String(retryAfter));
    res.writeHead(status, headers);
    res.end(method === 'HEAD' ? undefined : body);
    k.metrics.observe(method, route, owner, status, (performance.now() - started) / 1000);
    access?.record({ method, path, status, started, tenant, requestId, client: k.auth.clients.of(req) });
  }
}
