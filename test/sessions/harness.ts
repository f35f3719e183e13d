// A real server wired to the fake Anthropic and Ollama servers, with helpers to make agents, projects
// and sessions and to wait for what sessions do.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, type AnthropicScript, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOllama, type FakeOllama, type OllamaScript } from '../fakes/ollama.js';
import { pluginInfo } from '../fixtures/extensions/helpers.js';
import { hostPid, isAlive } from '../helpers/sandbox-pids.js';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';

export const MODEL = 'claude-sonnet-5-5';

export interface HarnessOptions {
  anthropic?: AnthropicScript;
  ollama?: OllamaScript;
  /** Start the server with no provider configured at all. */
  noProviders?: boolean;
  env?: Record<string, string>;
}

export interface Harness {
  server: TestServer;
  anthropic: FakeAnthropic;
  ollama: FakeOllama;
  env: Record<string, string>;
  agent(body?: Record<string, unknown>, key?: string): Promise<any>;
  project(key?: string): Promise<{ id: string; dir: string }>;
  session(body: Record<string, unknown>, key?: string): Promise<any>;
  get(id: string, key?: string): Promise<any>;
  /** Polls GET /api/sessions/:id until `done` holds. */
  until(id: string, done: (s: any) => boolean, timeoutMs?: number, key?: string): Promise<any>;
  subscribe(sessionId: string, key?: string): Promise<TestSocket>;
  events(id: string, key?: string): Promise<any[]>;
  messages(id: string, key?: string): Promise<any[]>;
  /**
   * The host pid of a live runner, from the pid the API reports for it (local to the sessions
   * extension's sandbox); throws when no such runner is running. Map a runner while it lives.
   */
  hostPid(runnerPid: number): Promise<number>;
  /** Stops the server (SIGTERM) and starts a new one on the same data directory and fakes. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

let names = 0;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const anthropic = await startFakeAnthropic({ apiKey: 'test', script: options.anthropic ?? ['Hello from the fake.'] });
  const ollama = await startFakeOllama({ script: options.ollama ?? ['Hello from the fake Ollama.'] });
  const env: Record<string, string> = options.noProviders
    ? { ...options.env }
    : { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, OLLAMA_HOST: ollama.url, ...options.env };
  const dataDir = await mkdtemp(join(tmpdir(), 'roost-data-'));
  let server = await startTestServer({ env, dataDir });
  const sockets: TestSocket[] = [];
  /** The projects' folders made here, removed with the data dir. */
  const projectDirs: string[] = [];

  const h: Harness = {
    get server() {
      return server;
    },
    anthropic,
    ollama,
    env,
    async agent(body = {}, key) {
      const res = await server.api('POST', '/api/agents', { key, body: { name: `agent-${++names}`, model: MODEL, ...body } });
      if (res.status !== 201) throw new Error(`agent not created: ${res.status} ${res.text}`);
      return res.body;
    },
    async project(key) {
      const dir = await mkdtemp(join(tmpdir(), 'roost-sess-'));
      projectDirs.push(dir);
      const res = await server.api('POST', '/api/projects', { key, body: { name: `project-${++names}`, workingDir: dir } });
      if (res.status !== 201) throw new Error(`project not created: ${res.status} ${res.text}`);
      return { id: res.body.id, dir: res.body.workingDir };
    },
    async session(body, key) {
      const res = await server.api('POST', '/api/sessions', { key, body });
      if (res.status !== 201) throw new Error(`session not created: ${res.status} ${res.text}`);
      return res.body;
    },
    async get(id, key) {
      return (await server.api('GET', `/api/sessions/${id}`, { key })).body;
    },
    async until(id, done, timeoutMs = 15_000, key) {
      const deadline = Date.now() + timeoutMs;
      let last: any;
      while (Date.now() < deadline) {
        last = await h.get(id, key);
        if (done(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`session ${id} never reached the expected state; last: ${JSON.stringify(last)}`);
    },
    async subscribe(sessionId, key) {
      const ws = await server.ws({ key });
      sockets.push(ws);
      ws.send({ type: 'subscribe', sessionId });
      await ws.next((m) => m.type === 'subscribed' || m.type === 'error');
      return ws;
    },
    async events(id, key) {
      return (await server.api('GET', `/api/sessions/${id}/events?limit=1000`, { key })).body.events;
    },
    async messages(id, key) {
      return (await server.api('GET', `/api/sessions/${id}/messages?limit=200`, { key })).body.messages;
    },
    async hostPid(runnerPid) {
      const root = (await pluginInfo(server, 'sessions'))?.pid;
      const pid = root ? hostPid(root, runnerPid) : undefined;
      if (pid === undefined) throw new Error(`no live runner ${runnerPid} in the sessions extension's sandbox (host pid ${root})`);
      return pid;
    },
    async restart() {
      await Promise.all(sockets.splice(0).map((s) => s.close()));
      await server.stop();
      server = await startTestServer({ env, dataDir });
    },
    async close() {
      await Promise.all(sockets.map((s) => s.close()));
      await server.stop();
      await Promise.all([dataDir, ...projectDirs].map((dir) => rm(dir, { recursive: true, force: true })));
      await anthropic.close();
      await ollama.close();
    },
  };
  return h;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True while a process with this host pid runs (not a zombie: an orphan may wait long to be reaped). */
export const alive = isAlive;

/** Waits until the process is gone (a killed process dies a moment later). */
export async function gone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(20);
  }
  return !alive(pid);
}
