// The README's path from a clone to an agent's first answer, timed step by step (docs/testing.md,
// "The first hour"). Run by hand, not by `npm run bench`: it clones and installs for minutes.
//   node --import tsx test/bench/first-hour.ts [repository]   (default: this checkout's HEAD)
// The model is the fake Ollama on loopback, standing in for a local Ollama; the clone is local, so
// only npm's download time depends on the network (a warm npm cache makes it small).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../dashboard/browser.js';
import { startFakeOllama } from '../fakes/ollama.js';

const source = resolve(process.argv[2] ?? '.');
const work = await mkdtemp(join(tmpdir(), 'roost-first-hour-'));
const clone = join(work, 'roost');
const steps: Array<[string, number]> = [];
const t0 = performance.now();
let mark = t0;
const step = (name: string) => {
  const now = performance.now();
  steps.push([name, now - mark]);
  mark = now;
};
const run = (cmd: string, args: string[], cwd: string) => {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
};

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

const loads = [loadavg()[0]];
run('git', ['clone', '--quiet', source, clone], work);
step('git clone (local)');
run('npm', ['install', '--no-audit', '--no-fund'], clone);
step('npm install (builds once)');
loads.push(loadavg()[0]);

const ollama = await startFakeOllama({ script: ['Hello! I am your first agent.'] });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn('npm', ['start'], {
  cwd: clone,
  env: { ...process.env, ROOST_PORT: String(port), ROOST_UI_PORT: '0', ROOST_DATA_DIR: join(work, 'data'), OLLAMA_HOST: ollama.url },
  stdio: 'ignore',
  detached: true,
});
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};
try {
  for (;;) {
    const ok = await fetch(`${base}/api/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (server.exitCode !== null) throw new Error('npm start exited');
    await new Promise((r) => setTimeout(r, 50));
  }
  step('npm start to /api/health 200');

  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 120_000 });
  step('dashboard first page shown (Chromium)');
  await browser.close();

  const agent = await api('POST', '/api/agents', { name: 'first', provider: 'ollama', model: 'llama3.2' });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  const session = await api('POST', '/api/sessions', { agentId: agent.body.id, initialPrompt: 'Hello, who are you?' });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${JSON.stringify(session.body)}`);
  for (;;) {
    const { body } = await api('GET', `/api/sessions/${session.body.id}/messages?limit=50`);
    if (body?.messages?.some((m: any) => m.role === 'assistant')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  step('agent created, first answer');
} finally {
  try {
    process.kill(-server.pid!, 'SIGTERM');
  } catch {}
  await ollama.close();
}
loads.push(loadavg()[0]);

for (const [name, ms] of steps) console.log(`| ${name} | ${(ms / 1000).toFixed(1)} s |`);
console.log(`| clone to first answer | ${((mark - t0) / 1000).toFixed(1)} s |`);
console.log(`load average (1 min) at start, after install, at end: ${loads.map((l) => l.toFixed(1)).join(', ')}`);
await new Promise((r) => server.once('exit', r));
await rm(work, { recursive: true, force: true });
