// Copied by scripts/bundle-extensions.mjs beside each bundle as `<name>.cjs`, the file a process runs (or requires):
// it compiles `<name>.code.js` (the bundle, one function) with the V8 code cache the build made for it,
// `<name>.code.js.cache`, and calls it as Node calls a CommonJS module. V8 checks the cache against the
// source, its own version and its flags, and compiles from source when any differs.
'use strict';
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { Script } = require('node:vm');

const file = __filename.replace(/\.cjs$/, '.code.js');
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  // No cache (a build interrupted, or one without this step): compiled from source.
}
const script = new Script(readFileSync(file, 'utf8'), { filename: file, cachedData });
const body = script.runInThisContext();
const bundled = { exports: {} };
body.call(bundled.exports, bundled.exports, createRequire(file), bundled, file, __dirname);
// What the bundle exports, for a bundle that is required rather than run (the roost command's plugin-command.cjs).
module.exports = bundled.exports;
