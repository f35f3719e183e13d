// From code-caches.mjs, under the V8 flags the bundle's processes run with (a cache records the flags
// it was made under, and V8 refuses it under others). Writes `<file>.cache`, the V8 code cache that
// code-cache-runner.cjs compiles `<file>` with. A cache holds the functions compiled when it is made,
// and V8 compiles a function when it is first called; so:
//   `evaluate <file>`: runs the bundle as its process would, with stdin at its end (a server extension
//     loads its modules, finds no host to talk to and exits), and writes the cache as the process exits:
//     what a start compiles, and no more (each function compiled costs the process memory all its life);
//   `eager <file>...`: runs nothing, and compiles every function with lazy compilation off, turned back
//     on before the cache is written, since the processes that read it run with it on;
//   `serve <file>`: runs the roost command's bundle as `roost serve` on a fresh data folder until the
//     server is ready, then stops it: the cache holds what a server's start compiles.
'use strict';
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { createRequire } = require('node:module');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const { setFlagsFromString } = require('node:v8');
const { Script } = require('node:vm');

const [mode, ...files] = process.argv.slice(2);
const compile = (file) => new Script(readFileSync(file, 'utf8'), { filename: file });

const run = (script, file) => {
  const bundled = { exports: {} };
  script.runInThisContext().call(bundled.exports, bundled.exports, createRequire(file), bundled, file, dirname(file));
};

/** A port nothing listens on now. */
const freePort = () => new Promise((resolve, reject) => {
  const probe = net.createServer().once('error', reject).listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

/** Resolves once GET url answers 200 (asked every 50 ms). */
const answered = (url) => new Promise((resolve) => {
  const ask = () => http.get(url, (res) => {
    res.resume();
    if (res.statusCode === 200) resolve();
    else setTimeout(ask, 50);
  }).once('error', () => setTimeout(ask, 50));
  ask();
});

if (mode === 'evaluate') {
  const [file] = files;
  const script = compile(file);
  process.on('exit', () => writeFileSync(`${file}.cache`, script.createCachedData()));
  run(script, file);
} else if (mode === 'serve') {
  const [file] = files;
  void freePort().then((port) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roost-code-cache-'));
    process.env.HOME = dataDir;
    const script = compile(file);
    process.on('exit', () => {
      writeFileSync(`${file}.cache`, script.createCachedData());
      rmSync(dataDir, { recursive: true, force: true });
    });
    process.argv = [process.argv[0], file, 'serve', '--port', String(port), '--data-dir', dataDir];
    run(script, file);
    // The server's own SIGTERM handling stops it; the cache is written as the process exits.
    void answered(`http://127.0.0.1:${port}/health/ready`).then(() => process.kill(process.pid, 'SIGTERM'));
  });
} else {
  for (const file of files) {
    setFlagsFromString('--no-lazy');
    const script = compile(file);
    setFlagsFromString('--lazy');
    writeFileSync(`${file}.cache`, script.createCachedData());
  }
}
