// The last part of bundling: a V8 code cache beside each bundle that runs through
// code-cache-runner.cjs, made by make-code-cache.cjs under the V8 flags the bundle's processes run with.
// A server extension lives long, so its cache holds what its start compiles (made by evaluating it);
// the other processes (CLI plugins and their hooks, the sessions' file worker) are short-lived and may
// run any code their start reaches at build time, so theirs holds every function, compiled without
// running one. (The file worker runs with a heap limit of its own, so V8 passes its small cache over.)
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { extensionHeapFlags } from '../dist/kernel/host/heap-flags.js';
import { DEFAULT_SANDBOX_LIMITS } from '../dist/kernel/host/sandbox.js';

const run = promisify(execFile);
const maker = join(dirname(fileURLToPath(import.meta.url)), 'make-code-cache.cjs');
const EXTENSION_FLAGS = extensionHeapFlags(DEFAULT_SANDBOX_LIMITS.memoryMb);
/** A server extension with no host to talk to exits at once; one that does not (or fails) is cached eagerly. */
const EVALUATE_TIMEOUT_MS = 30_000;

async function evaluated(file) {
  try {
    // stdin at its end, an empty environment but PATH: nothing for the bundle to find but its own code.
    const evaluation = run(process.execPath, [...EXTENSION_FLAGS, maker, 'evaluate', file], { timeout: EVALUATE_TIMEOUT_MS, env: { PATH: process.env.PATH }, killSignal: 'SIGKILL' });
    evaluation.child.stdin.end();
    await evaluation;
  } catch (error) {
    process.stderr.write(`warning: ${file} could not be evaluated alone (${error.message.split('\n')[0]}); its code cache holds every function\n`);
    await run(process.execPath, [...EXTENSION_FLAGS, maker, 'eager', file]);
  }
}

/**
 * The roost command's bundle, which `roost serve` runs: its cache is what a server's start compiles, made
 * by starting one (with nothing of this shell's environment but PATH: no ROOST_DATABASE_URL to migrate).
 * Without it the bundle still runs, compiled at each start.
 */
async function served(file) {
  try {
    await run(process.execPath, [maker, 'serve', file], { timeout: EVALUATE_TIMEOUT_MS * 4, env: { PATH: process.env.PATH }, killSignal: 'SIGKILL', maxBuffer: 16 << 20 });
  } catch (error) {
    await rm(`${file}.cache`, { force: true });
    process.stderr.write(`warning: no code cache for ${file}: a server did not start for it (${error.message.split('\n')[0]})\n`);
  }
}

/** `bundles`: each bundle's `.code.js` file and its kind: 'extension' (a server extension's), 'serve' (the roost command's) or 'other'. */
export async function writeCodeCaches(bundles) {
  const of = (kind) => bundles.filter((b) => b.kind === kind).map((b) => b.file);
  await Promise.all([
    run(process.execPath, [maker, 'eager', ...of('other')], { maxBuffer: 1 << 20 }),
    (async () => {
      for (const file of of('extension')) await evaluated(file);
      for (const file of of('serve')) await served(file);
    })(),
  ]);
  process.stdout.write(`wrote a code cache for ${bundles.length} bundles\n`);
}
