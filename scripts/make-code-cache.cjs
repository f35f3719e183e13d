// From code-caches.mjs, under the V8 flags the bundle's processes run with (a cache records the flags
// it was made under, and V8 refuses it under others). Writes `<file>.cache`, the V8 code cache that
// code-cache-runner.cjs compiles `<file>` with. A cache holds the functions compiled when it is made,
// and V8 compiles a function when it is first called; so:
//   `evaluate <file>`: runs the bundle as its process would, with stdin at its end (a server extension
//     loads its modules, finds no host to talk to and exits), and writes the cache as the process exits:
//     what a start compiles, and no more (each function compiled costs the process memory all its life);
//   `eager <file>...`: runs nothing, and compiles every function with lazy compilation off, turned back
//     on before the cache is written, since the processes that read it run with it on.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { setFlagsFromString } = require('node:v8');
const { Script } = require('node:vm');

const [mode, ...files] = process.argv.slice(2);
const compile = (file) => new Script(readFileSync(file, 'utf8'), { filename: file });

if (mode === 'evaluate') {
  const [file] = files;
  const script = compile(file);
  process.on('exit', () => writeFileSync(`${file}.cache`, script.createCachedData()));
  const bundled = { exports: {} };
  script.runInThisContext().call(bundled.exports, bundled.exports, createRequire(file), bundled, file, dirname(file));
} else {
  for (const file of files) {
    setFlagsFromString('--no-lazy');
    const script = compile(file);
    setFlagsFromString('--lazy');
    writeFileSync(`${file}.cache`, script.createCachedData());
  }
}
