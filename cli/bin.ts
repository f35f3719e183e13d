#!/usr/bin/env node
// The roost executable. It runs the bundle of cli/main.ts that `npm run build` makes (one file, and a
// chunk per command, instead of some fifty modules: a plugin command starts in about half the time), unless
// the bundle is missing or older than the compiled modules (tsc ran alone since). `roost serve` runs the
// same command as one CommonJS file compiled with a V8 code cache that a server's start made at build
// time (Node 20 caches no compiled code for ES modules): the kernel finds its files from the package root
// (lib/paths.ts), not beside its modules, and one cached file starts a server on ~0.1 s less CPU.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const compiled = new URL('./main.js', import.meta.url);
const bundle = new URL('../bundles/cli/main.js', import.meta.url);
const serveBundle = new URL('../bundles/cli/main.cjs', import.meta.url);
const changedAt = (file: URL) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;
const compiledTime = changedAt(compiled) ?? 0;
const fresh = (file: URL) => (changedAt(file) ?? -1) >= compiledTime;
const command = process.argv.slice(2).find((word) => !word.startsWith('-'));
if (command === 'serve' && fresh(serveBundle)) createRequire(import.meta.url)(fileURLToPath(serveBundle));
else await import((fresh(bundle) ? bundle : compiled).href);
