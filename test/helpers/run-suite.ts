// `npm test`: every test file (fixtures aside) under node:test, with one PostgreSQL for the whole run.
// Starting a cluster (initdb, then postgres) takes seconds; the files that store on PostgreSQL each made
// their own. Here one starts before the files do, and sharedPostgres() in each file (postgres.ts) adds
// its databases to it. Arguments: files or folders to run instead of test/ (`npm test -- test/unit`).
// The files run as the JavaScript transpile-tests.ts writes, without tsx in every test process.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RUN_POSTGRES_ENV, startPostgres } from './postgres.js';
import { MIRROR_ENV, mirrored, transpileTree } from './transpile-tests.js';

/** Two files at a time: one per core of the 2-core machines the suite is measured on (docs/testing.md). */
const CONCURRENCY = process.env.ROOST_TEST_CONCURRENCY ?? '2';

async function testFiles(roots: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const root of roots) {
    if (!(await stat(root)).isDirectory()) {
      files.push(root);
      continue;
    }
    for (const entry of await readdir(root, { recursive: true })) {
      if (entry.endsWith('.test.ts') && !entry.split('/').includes('fixtures')) files.push(join(root, entry));
    }
  }
  return files.sort();
}

const files = await testFiles(process.argv.length > 2 ? process.argv.slice(2) : ['test']);
const root = resolve(import.meta.dirname, '../..');
const mirror = await mkdtemp(join(tmpdir(), 'roost-suite-js-'));
await transpileTree(root, mirror);
// The unit tier (`npm run test:unit`) needs no database: a run of test/unit/ alone starts none.
const unitOnly = files.every((file) => resolve(file).startsWith(join(root, 'test/unit/')));
// Without PostgreSQL the run goes on: the files that need it fail, each saying why, as they would alone.
const postgres = unitOnly
  ? undefined
  : await startPostgres().catch((err: Error) => {
      process.stderr.write(`run-suite: no PostgreSQL for the run (${err.message.split('\n')[0]})\n`);
      return undefined;
    });
// Node reads the certificates NODE_EXTRA_CA_CERTS names at every start, ~70 ms of CPU on the 2-core
// reference machine (which sets it), in each of the thousands of Node processes the suite starts; no
// test talks TLS to a server outside the machine, so the files run without it.
const inherited = { ...process.env };
delete inherited.NODE_EXTRA_CA_CERTS;
const child = spawn(
  process.execPath,
  ['--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=./test/helpers/tap-with-slowest.mjs', ...files.map((file) => mirrored(root, mirror, resolve(file)))],
  { stdio: 'inherit', env: { ...inherited, [MIRROR_ENV]: mirror, ...(postgres ? { [RUN_POSTGRES_ENV]: postgres.adminUrl } : {}) } },
);
// Ctrl-C reaches the runner from the terminal; a SIGTERM sent to this process is passed on.
process.on('SIGTERM', () => child.kill('SIGTERM'));
process.on('SIGINT', () => undefined);
const code = await new Promise<number>((resolve) => child.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
await postgres?.stop();
await rm(mirror, { recursive: true, force: true });
process.exit(code);
