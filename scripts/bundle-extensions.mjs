// `npm run build`, after tsc: one bundled file per process entry of the in-tree extensions — each
// [server] main, each [[commands]] binary and hook written in TypeScript, and the sessions agent
// runner — at dist/bundles/<the source path>.cjs, with a V8 code cache (code-caches.mjs), or .js
// (SPLIT_ENTRIES below). lib/paths.ts runnableEntry runs the bundle when it exists: a
// process then loads one file instead of a few hundred modules (see docs/architecture.md).
import { copyFile, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse as parseToml } from 'smol-toml';
import { inTreeManifestDirs } from './in-tree-manifests.mjs';
import { writeCodeCaches } from './code-caches.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Entries started as processes that no manifest names: the agent runner and its sandboxed file worker,
 * and the roost command (cli/bin.ts runs main; main requires plugin-command, a bundle of its own with a
 * code cache, for plugin commands).
 */
const EXTRA_ENTRIES = ['extensions/sessions/runner/main.ts', 'extensions/sessions/runner/sandbox-fs.ts', 'cli/main.ts', 'cli/plugin-command.ts'];

/**
 * Left to node_modules at run time: the PostgreSQL driver (loaded only with ROOST_DATABASE_URL) and
 * the optional parts of it knex's dialect asks for, ajv (protocol/validate.ts requires it on first
 * use), tinypool (it finds its worker file beside its own modules); and OpenTelemetry, imported only
 * when tracing is on (kernel/tracing/, sdk/tracing.ts), kept as one copy in node_modules rather than
 * one per bundle. better-sqlite3's
 * JavaScript is bundled and its addon loaded by path (lib/sqlite-client.ts), so neither the `bindings`
 * package it would find the addon with nor the sqlite3 driver knex's SQLite dialect names is ever loaded.
 */
const EXTERNAL = ['bindings', 'sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'ajv', 'ajv-formats', 'tinypool', '@opentelemetry/*'];

/**
 * knex loads a dialect by its client's name; Roost names one, pg, and hands it its SQLite client as a
 * class (lib/sqlite-client.ts). The other dialects (MSSQL, MySQL, Oracle …) were a fifth of every
 * bundle, parsed by each process at its start. Each is bundled as a module that says so if it is ever
 * asked for.
 */
const KNEX_DIALECTS = new Set(['./postgres']);
const onlyUsedKnexDialects = {
  name: 'only-used-knex-dialects',
  setup(build) {
    build.onResolve({ filter: /^\.\/[\w-]+$/ }, (args) => {
      if (!args.importer.endsWith('/knex/lib/dialects/index.js') || KNEX_DIALECTS.has(args.path)) return undefined;
      return { path: args.path.slice(2), namespace: 'unused-knex-dialect' };
    });
    build.onLoad({ filter: /.*/, namespace: 'unused-knex-dialect' }, (args) => ({
      contents: `throw new Error('the knex dialect ${args.path} is not bundled: Roost stores on SQLite or PostgreSQL');`,
      loader: 'js',
    }));
  },
};

/** Every entry, and which of them run as server extensions (their processes get the extension heap flags). */
async function entries() {
  const out = new Set(EXTRA_ENTRIES);
  const serverMains = new Set();
  for (const dir of inTreeManifestDirs(root)) {
    const manifest = parseToml(await readFile(join(dir, 'plugin.toml'), 'utf8'));
    const files = [manifest.server?.main, ...(manifest.commands ?? []).map((c) => c.binary), ...Object.values(manifest.hooks ?? {})];
    for (const file of files) {
      if (typeof file === 'string' && file.endsWith('.ts')) out.add(relative(root, join(dir, file)));
    }
    if (typeof manifest.server?.main === 'string') serverMains.add(relative(root, join(dir, manifest.server.main)));
  }
  return { list: [...out].sort(), serverMains };
}

/**
 * knex logs through debug, which only writes when DEBUG names its namespace; an extension never has
 * DEBUG (kernel/host/hosting.ts passes it a few variables), so there its debug is a function that does
 * nothing. Loading the real one took an extension's start ~15 ms: debug reads its settings and loads tty
 * to ask whether stderr is a terminal. The server's own bundle keeps it (`DEBUG=knex:query roost serve`).
 */
const silentKnexDebug = {
  name: 'silent-knex-debug',
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, (args) => (args.importer.includes('/node_modules/knex/') ? { path: 'debug', namespace: 'silent-knex-debug' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'silent-knex-debug' }, () => ({ contents: 'module.exports = () => () => {};', loader: 'js' }));
  },
};

/**
 * prom-client requires the OpenTelemetry API when it loads, for exemplars (a trace id on a sample),
 * which Roost never turns on: ~30 ms of each server start went to loading that package's many small
 * files. prom-client gets the API on its first read of it instead.
 */
const lazyOtelForPromClient = {
  name: 'lazy-otel-for-prom-client',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\/api$/ }, (args) => (args.importer.includes('/node_modules/prom-client/') ? { path: '@opentelemetry/api', namespace: 'lazy-otel' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy-otel' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('@opentelemetry/api')[key] });",
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/** The entries whose dependencies read a class's .name (see keepNames below). */
const KEEP_NAMES = new Set(['extensions/telegram/main.ts']);

/**
 * ES modules split into chunks that load on first use: the roost command (a chunk per command, so
 * `roost run` never loads the server's code) and the agent runner (a few KB, then the provider SDK,
 * execa or the MCP client a session asks for: as one file with its cache it started slower). Every
 * other entry is one file run with a V8 code cache (below).
 */
const SPLIT_ENTRIES = new Set(['cli/main.ts', 'extensions/sessions/runner/main.ts']);
/**
 * Also one file, run with a code cache: the roost command as `roost serve` runs it (cli/bin.ts), the
 * kernel and all; its cache is made by a server's start at the end of the build (serve-code-cache.mjs).
 * Node 20 keeps no compiled code for the chunks above, and compiling the kernel's was ~0.1 s of CPU per start.
 */
const SERVE_ENTRY = 'cli/main.ts';
/** What only other commands load (the AI review, the code host, task runs) is left to node_modules there: the file and the server's memory stay smaller. */
const SERVE_EXTERNAL = [...EXTERNAL, '@anthropic-ai/sdk', '@octokit/*', 'execa'];

/** What every entry's build shares. */
const common = (file) => ({
  entryPoints: [join(root, file)],
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [onlyUsedKnexDialects, lazyOtelForPromClient, ...(file.startsWith('extensions/') ? [silentKnexDebug] : [])],
  // Bundling renames a class whose name another module uses as a global (abort-controller's AbortSignal
  // beside the platform's, in the Telegram bridge); keepNames keeps its .name, which node-fetch checks.
  // Only there: elsewhere it costs a defineProperty for every closure made, ~10 % of the kernel's CPU on a read.
  keepNames: KEEP_NAMES.has(file),
  sourcemap: true,
  logLevel: 'warning',
});

/** One ES module, plus chunks beside it only for what it imports dynamically. */
const splitBuild = (file) => build({
  ...common(file),
  outdir: join(root, 'dist', 'bundles', dirname(file)),
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS dependencies (knex) call require() for Node's own modules.
  banner: { js: "import { createRequire as __roostCreateRequire } from 'node:module'; const require = __roostCreateRequire(import.meta.url);" },
});

/**
 * `<name>.code.js`: the entry and everything it imports as the body of one function, in strict mode as
 * the ES modules it is made of; `<name>.cjs` (code-cache-runner.cjs) compiles it with the cache the
 * build made for it and calls it. Node 20 caches no code for ES modules, and compiling the bundle was
 * about a third of an extension's start.
 */
const codeFile = (file) => join(root, 'dist', 'bundles', file.replace(/\.ts$/, '.code.js'));
const cachedBuild = async (file) => {
  const code = codeFile(file);
  await build({
    ...common(file),
    outfile: code,
    format: 'cjs',
    ...(file === SERVE_ENTRY ? { external: SERVE_EXTERNAL } : {}),
    // import() becomes a require() (Node 20.19 and later require ES modules too): Node 20 loses the
    // dynamic import handler of a script compiled from a code cache another process made.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__roostImportMetaUrl' },
    banner: { js: "(function (exports, require, module, __filename, __dirname) { 'use strict'; const __roostImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    footer: { js: '})' },
  });
  await copyFile(join(root, 'scripts', 'code-cache-runner.cjs'), code.replace(/\.code\.js$/, '.cjs'));
};

const { list, serverMains } = await entries();
// Chunk names carry a content hash: without this, every rebuild left the last build's chunks behind
// (dist/bundles had grown to 200 MB of them on a working copy rebuilt all day).
await rm(join(root, 'dist', 'bundles'), { recursive: true, force: true });
// One build per entry.
await Promise.all([...list.map((file) => (SPLIT_ENTRIES.has(file) ? splitBuild(file) : cachedBuild(file))), cachedBuild(SERVE_ENTRY)]);
process.stdout.write(`bundled ${list.length} entries into dist/bundles\n`);
const cached = list.filter((file) => !SPLIT_ENTRIES.has(file));
await writeCodeCaches(cached.map((file) => ({ file: codeFile(file), extension: serverMains.has(file) })));
