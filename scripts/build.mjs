// `npm run build`: the steps of a build, each announced (npm install runs this for minutes and
// would otherwise print nothing), then a stamp. `--if-stale` (npm start, npm test) builds only when a
// source is newer than the stamp, so a start after `npm install` takes about a second.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
/** What the build reads: a change to any of them (a file added, edited or removed) makes dist stale. */
const SOURCES = ['kernel', 'protocol', 'cli', 'extensions', 'sdk', 'lib', 'plugins', 'schemas', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];
const STEPS = [
  ['compiling the TypeScript into dist/ (the longest step: a minute or more)', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']],
  ['bundling each extension, plugin and the agent runner into one file, with a V8 code cache', ['scripts/bundle-extensions.mjs']],
  ['precompiling the JSON Schema validators', ['scripts/build-validators.mjs']],
  ['reading the in-tree manifests once, for every start', ['scripts/prepare-manifests.mjs']],
  ['precompiling the validators of their response schemas', ['scripts/build-response-validators.mjs']],
  ['building the dashboard', ['scripts/build-dashboard.mjs']],
  ['starting a server once, for the code cache every `roost serve` starts with', ['scripts/serve-code-cache.mjs']],
];

/** The newest modification time under a path; folders count too, so a removed file shows. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

function isStale() {
  const built = newest(stamp);
  return built === 0 || SOURCES.some((source) => newest(join(root, source)) > built);
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);
const began = Date.now();
STEPS.forEach(([what, argv], i) => {
  process.stdout.write(`roost build ${i + 1}/${STEPS.length}: ${what}\n`);
  execFileSync(process.execPath, argv, { cwd: root, stdio: 'inherit' });
});
writeFileSync(stamp, `${new Date().toISOString()}\n`);
process.stdout.write(`roost build: done in ${Math.round((Date.now() - began) / 1000)} s\n`);
