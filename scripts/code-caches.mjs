// A V8 code cache beside each bundle that runs through code-cache-runner.cjs, made by
// make-code-cache.cjs under the V8 flags the bundle's processes run with: the last part of bundling, and
// for the bundle `roost serve` runs the build's last step (serve-code-cache.mjs).
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
 * by starting one (with nothing of this shell's environment but PATH: no ROOST_DATABASE_URL to migrate),
 * once the rest of dist/ a start reads (validators, prepared manifests) is built. Without it the bundle
 * still runs, compiled at each start.
 */
export async function writeServeCodeCache(file) {
  try {
    await run(process.execPath, [maker, 'serve', file], { timeout: EVALUATE_TIMEOUT_MS * 4, env: { PATH: process.env.PATH }, killSignal: 'SIGKILL', maxBuffer: 16 << 20 });
    return true;
  } catch (error) {
    await rm(`${file}.cache`, { force: true });
    process.stderr.write(`warning: no code cache for ${file}: a server did not start for it (${error.message.split('\n')[0]})\n`);
    return false;
  }
}

/** `bundles`: each bundle's `.code.js` file, and whether it is a server extension's. */
export async function writeCodeCaches(bundles) {
  const extensions = bundles.filter((b) => b.extension).map((b) => b.file);
  const others = bundles.filter((b) => !b.extension).map((b) => b.file);
  await Promise.all([
    run(process.execPath, [maker, 'eager', ...others], { maxBuffer: 1 << 20 }),
    (async () => { for (const file of extensions) await evaluated(file); })(),
  ]);
  process.stdout.write(`wrote a code cache for ${bundles.length} bundles\n`);
}
