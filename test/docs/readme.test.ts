// The README's commands, run as written (each fenced `sh` line), with the two things a test must
// change: port 3000 becomes whatever port is free, and HOME (so ~/.roost) is a temporary folder.
// `npm install` and `npm test` are what CI itself runs; a command this file does not know fails it, so
// a new README command arrives with its check.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa, type ResultPromise } from 'execa';
import { repoRoot, roostBin } from '../helpers/paths.js';

const DOC_PORT = '3000';

/** Every command line of the fenced sh blocks (indented ones too), comments dropped. */
function commands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map((m) => m[2]!);
  return blocks.flatMap((block) => block.split('\n')).map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
}

describe('README', () => {
  let home: string;
  let lines: string[];
  const servers: ResultPromise[] = [];

  /** `roost serve` as the README starts it, with HOME in a temp folder; resolves with its URL once it listens. */
  async function serve(args: string[], env: Record<string, string> = {}): Promise<string> {
    const child = execa(process.execPath, [roostBin, 'serve', ...args], { env: { HOME: home, ...env }, extendEnv: true, stdin: 'ignore', reject: false });
    servers.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8');
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk: string) => {
        out += chunk;
        const url = /^(http:\/\/\S+)$/m.exec(out);
        if (url) resolve(url[1]!);
      });
      void child.then((exit) => reject(new Error(`roost serve exited (${exit.exitCode}): ${exit.stderr}`)));
    });
  }

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'roost-readme-home-'));
    lines = commands(await readFile(join(repoRoot, 'README.md'), 'utf8'));
  });
  after(async () => {
    for (const child of servers) child.kill('SIGTERM');
    await Promise.all(servers);
    await rm(home, { recursive: true, force: true });
  });

  it('has the two set-up commands, install-and-start and test, and nothing it does not check', async () => {
    assert.equal(lines[0], 'npm install && npm start');
    assert.equal(lines[1], 'npm test');
    const known = [/^npm install && npm start$/, /^npm test$/, /^roost serve /, /^roost run test$/, /^curl /];
    for (const line of lines) assert.ok(known.some((k) => k.test(line)), `README command not covered by this test: ${line}`);
    const start = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')).scripts.start;
    assert.equal(start, 'node scripts/build.mjs --if-stale && node dist/cli/bin.js serve', 'npm start builds when a source is newer than the build, then serves on the embedded defaults');
  });

  it('starts without building again when nothing changed since the last build (npm install built)', async () => {
    const run = await execa(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), '--if-stale'], { reject: false });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.stdout, '', 'a fresh build is not built again');
  });

  it('starts the server on its embedded defaults (~/.roost/data), and with the flags it shows', async () => {
    const defaults = await serve([], { ROOST_PORT: '0' });
    assert.equal((await fetch(`${defaults}/health/live`)).status, 200);
    const line = lines.find((l) => l.startsWith('roost serve '))!;
    const args = line.split(/\s+/).slice(2).map((arg) => (arg === DOC_PORT ? '0' : arg.replace(/^~/, home)));
    const flagged = await serve(args);
    const health = await (await fetch(`${flagged}/api/health`)).json() as { status: string };
    assert.ok(['ok', 'starting'].includes(health.status), JSON.stringify(health));
  });

  it('runs every curl example against a running server', async () => {
    const url = await serve(['--port', '0', '--data-dir', join(home, 'curl-data')]);
    for (const line of lines.filter((l) => l.startsWith('curl '))) {
      const run = await execa('sh', ['-c', `${line.replaceAll(`127.0.0.1:${DOC_PORT}`, new URL(url).host)} -sS --fail-with-body`], { reject: false });
      assert.equal(run.exitCode, 0, `${line}\n${run.stdout}${run.stderr}`);
      const body = JSON.parse(run.stdout);
      assert.equal(body.code, undefined, `${line} answered an error: ${run.stdout}`);
    }
  });

  it('runs `roost run test` in a project folder with no config', async () => {
    const project = await mkdtemp(join(tmpdir(), 'roost-readme-project-'));
    try {
      await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'readme-check', scripts: { test: "node -e \"console.log('readme test ran')\"" } }));
      const line = lines.find((l) => l.startsWith('roost run '))!;
      const run = await execa(process.execPath, [roostBin, ...line.split(/\s+/).slice(1)], { cwd: project, env: { HOME: home }, reject: false });
      assert.equal(run.exitCode, 0, run.stderr);
      assert.match(run.stdout + run.stderr, /readme test ran/);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
