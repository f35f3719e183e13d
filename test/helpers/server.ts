// Starts the real built server (`roost serve`) as a child process on a free port with a temporary
// data dir, and talks to it over real HTTP and WebSocket.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import type WebSocket from 'ws';
import { roostBin } from './paths.js';
import { httpRequest, type AnswerHeaders } from './http-request.js';
import { sharedPostgres } from './postgres.js';

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  /** The PostgreSQL database the server stores in (its superuser URL), or null on SQLite. */
  databaseUrl: string | null;
  /** The server's process, which is also a promise of its exit (it never rejects). */
  process: ServerProcess;
  /** Everything the server wrote to stderr so far. */
  log(): string;
  api(method: string, path: string, options?: { body?: unknown; raw?: string; key?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<ApiResponse>;
  ws(options?: { key?: string; path?: string }): Promise<TestSocket>;
  stop(): Promise<void>;
  /** Stops the server and removes its data dir. */
  cleanup(): Promise<void>;
}

export type ServerProcess = ChildProcess & Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;

export interface ApiResponse {
  status: number;
  headers: AnswerHeaders;
  body: any;
  text: string;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data dir (to test that data survives a restart). */
  dataDir?: string;
  extraArgs?: string[];
  /** false: return once the port listens, without waiting for GET /health/ready (tests of start-up itself). */
  waitReady?: boolean;
  /** ROOST_DATABASE_URL for this server (several servers on one database: instances of one deployment). */
  databaseUrl?: string;
  /** A command the server runs under, e.g. `ip netns exec <name>` (quiet-namespace.ts). */
  launcher?: string[];
}

/** Servers still running: killed when this test process ends, however it ends, so none is left behind. */
const liveServers = new Set<ChildProcess>();
const killLiveServers = () => {
  for (const server of liveServers) server.kill('SIGKILL');
};
process.once('exit', killLiveServers);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killLiveServers();
    process.kill(process.pid, signal); // the default action, now that this handler is gone
  });
}

/** With ROOST_TEST_POSTGRES=1 every test server gets its own database on this file's test PostgreSQL. */
const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';

/** `skip` for a test that opens the SQLite files itself (to tamper with them, or to see what is stored). */
export const sqliteFilesOnly = onPostgres ? 'it opens the SQLite files, and this run stores on PostgreSQL' : false;
/** The database of each data dir, so a server restarted on its data dir finds its data again. */
const databaseOfDataDir = new Map<string, string>();

async function databaseFor(dataDir: string): Promise<string> {
  let url = databaseOfDataDir.get(dataDir);
  if (!url) databaseOfDataDir.set(dataDir, (url = await (await sharedPostgres()).createDatabase()));
  return url;
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'roost-data-')));
  const databaseUrl = options.databaseUrl ?? (onPostgres && options.env?.ROOST_DATABASE_URL === undefined ? await databaseFor(dataDir) : undefined);
  const argv = [process.execPath, roostBin, 'serve', '--port', '0', '--data-dir', dataDir, ...(options.extraArgs ?? [])];
  const [command, ...args] = [...(options.launcher ?? []), ...argv];
  // node:child_process rather than execa, which would cost every test process ~0.16 s of CPU to load.
  const spawned = spawn(command!, args, {
    // Text lines, which tests match (stderr is a pipe here, so the server's own default would be JSON).
    env: { ...process.env, ROOST_ALLOWED_ROOTS: tmpdir(), ROOST_UI_PORT: '0', ROOST_LOG_FORMAT: 'text', ROOST_CHECK_RESPONSES: process.env.ROOST_CHECK_RESPONSES ?? '1', ...(databaseUrl ? { ROOST_DATABASE_URL: databaseUrl } : {}), ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    spawned.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    spawned.once('error', () => resolve({ exitCode: null, signal: null }));
  });
  const child = Object.assign(spawned, { then: exited.then.bind(exited), catch: exited.catch.bind(exited), finally: exited.finally.bind(exited) }) as unknown as ServerProcess;
  liveServers.add(spawned);
  void exited.then(() => liveServers.delete(spawned));
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const { host, port } = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave an orphan that keeps the test file alive
      reject(new Error(`server did not start:\n${stderr}`));
    }, 60_000);
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on http:\/\/(\[[^\]]+\]|[^:/\s"]+):(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ host: match[1]!, port: Number(match[2]) });
      }
    });
    child.then(() => reject(new Error(`server exited:\n${stderr}`)));
  });
  // Where it listens (--host), or loopback for a wildcard bind.
  const address = host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host;
  const url = `http://${address}:${port}`;
  if (options.waitReady !== false) {
    await waitReady(url).catch((err) => {
      child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}:\n${stderr}`);
    });
  }

  // Connections kept open between a test's requests, as fetch keeps them.
  const agent = new Agent({ keepAlive: true });
  const api: TestServer['api'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    } else if (opts.raw !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    // A hung server fails the test instead of hanging it.
    const { status, headers: answered, text } = await httpRequest(`${url}${path}`, { method, headers, body, agent, timeoutMs: opts.timeoutMs ?? 60_000 });
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status, headers: answered, body: parsed, text };
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await child;
    clearTimeout(timer);
    agent.destroy();
  };

  return {
    url,
    port,
    dataDir,
    databaseUrl: databaseUrl || options.env?.ROOST_DATABASE_URL || null,
    process: child,
    log: () => stderr,
    api,
    ws: (o = {}) => connectSocket(`ws://${address}:${port}${o.path ?? '/ws'}`, o.key),
    stop,
    async cleanup() {
      await stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until GET /health/ready answers 200: the kernel database is open and every eager extension runs. */
export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const res = await httpRequest(`${url}/health/ready`, { timeoutMs: 5_000 }).catch(() => undefined);
    if (res?.status === 200) return;
    if (res) last = `${res.status} ${res.text}`;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server never became ready (last: ${last})`);
}

export interface TestSocket {
  socket: WebSocket;
  /** Every message received so far, parsed. */
  messages: any[];
  send(message: unknown): void;
  /** Resolves with the first (already received or future) message that matches. */
  next(match: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

export async function connectSocket(url: string, key?: string): Promise<TestSocket> {
  // Imported here: a file that opens no socket does not load ws (~0.1 s of CPU per test process).
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    const messages: any[] = [];
    const waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString());
      messages.push(m);
      for (const w of [...waiters]) {
        if (w.match(m)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
    socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        messages,
        send: (m) => socket.send(typeof m === 'string' ? m : JSON.stringify(m)),
        next(match, timeoutMs = 5_000) {
          const seen = messages.find(match);
          if (seen) {
            messages.splice(messages.indexOf(seen), 1);
            return Promise.resolve(seen);
          }
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`)), timeoutMs);
            waiters.push({ match, resolve: (m) => { clearTimeout(timer); messages.splice(messages.indexOf(m), 1); res(m); } });
          });
        },
        close: () => new Promise<void>((res) => {
          if (socket.readyState === WebSocket.CLOSED) return res();
          socket.once('close', () => res());
          socket.close();
        }),
      }),
    );
  });
}
