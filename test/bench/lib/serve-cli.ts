// The shipped server as a user starts it: `node dist/cli/bin.js serve --port 0 --data-dir <dir>`,
// timed from spawn until it says it is ready: GET /health/ready answers 200 where the server has
// that route, else GET /api/health answers `status: ok` (every eager extension running).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { roostBin } from './dist.js';

export interface CliServer {
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first ready answer. */
  startToReadyMs: number;
  /** The probe that said ready: "/health/ready" or "/api/health". */
  readyProbe: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  plugins(): Promise<PluginInfo[]>;
  stop(): Promise<void>;
}

export interface PluginInfo {
  name: string;
  state: string;
  pid: number | null;
  activation: string;
  routes: string[];
}

export async function startCliServer(dataDir: string, env: Record<string, string> = {}): Promise<CliServer> {
  const started = performance.now();
  const child: ResultPromise = execa(process.execPath, [roostBin, 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ROOST_ALLOWED_ROOTS: dataDir, ...env },
    stdin: 'ignore',
    stdout: 'ignore',
    buffer: false,
    reject: false,
  });
  let log = '';
  child.stderr!.setEncoding('utf8');
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const match = /listening on http:\/\/[^\s]+:(\d+)/.exec(log);
      if (match) resolve(Number(match[1]));
    });
    void child.then(() => reject(new Error(`roost serve exited before listening:\n${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const api: CliServer['api'] = async (method, path, body) => {
    const res = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as any };
  };
  let readyProbe: string | undefined;
  for (;;) {
    readyProbe = await ready(api);
    if (readyProbe) break;
    if (performance.now() - started > 30_000) throw new Error(`roost serve not ready after 30 s:\n${log}`);
    await sleep(5);
  }
  const startToReadyMs = performance.now() - started;
  const plugins = async () => {
    const res = await api<{ plugins: PluginInfo[] }>('GET', '/api/plugins');
    if (res.status !== 200) throw new Error(`GET /api/plugins answered ${res.status}`);
    return res.body.plugins;
  };
  const notRunning = (await plugins()).filter((p) => p.activation === 'eager' && p.state !== 'running');
  if (notRunning.length > 0) throw new Error(`ready, yet eager extensions are not running: ${notRunning.map((p) => `${p.name}=${p.state}`).join(', ')}`);
  return {
    pid: child.pid!,
    url,
    startToReadyMs,
    readyProbe,
    api,
    plugins,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await child;
      clearTimeout(timer);
    },
  };
}

/** The probe that says ready, or undefined while the server is not (or not yet listening). */
async function ready(api: CliServer['api']): Promise<string | undefined> {
  const probe = await api('GET', '/health/ready').catch(() => undefined);
  if (!probe) return undefined;
  if (probe.status === 200) return '/health/ready';
  if (probe.status !== 404) return undefined;
  const health = await api<{ status: string }>('GET', '/api/health').catch(() => undefined);
  return health?.body.status === 'ok' ? '/api/health' : undefined;
}

/**
 * Starts the lazy extensions too: a lazy extension starts on the first request to one of its routes.
 * Returns the extensions running afterwards and those that are not (a lazy one without routes).
 */
export async function startEveryExtension(server: CliServer): Promise<{ running: PluginInfo[]; notRunning: string[] }> {
  for (const plugin of await server.plugins()) {
    if (plugin.state !== 'stopped') continue;
    const route = plugin.routes.find((r) => r.startsWith('GET ')) ?? plugin.routes[0];
    if (!route) continue;
    const [method, path] = route.split(' ') as [string, string];
    await server.api(method, path.replace(/:[A-Za-z_]+/g, 'bench-probe'), method === 'GET' ? undefined : {});
  }
  const all = (await server.plugins()).filter((p) => p.state !== 'unloaded');
  return {
    running: all.filter((p) => p.state === 'running'),
    notRunning: all.filter((p) => p.state !== 'running').map((p) => `${p.name}=${p.state}`),
  };
}
