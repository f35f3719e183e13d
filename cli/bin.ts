#!/usr/bin/env node
// The roost executable. It runs the bundle of cli/main.ts that `npm run build` makes (one file, and a
// chunk per command, instead of some fifty modules: a plugin command starts in about half the time), unless
// the bundle is missing or older than the compiled modules (tsc ran alone since). `roost serve` always
// runs the compiled modules: a server's start-up is not a command's, and the kernel is not bundled.
import { statSync } from 'node:fs';

const compiled = new URL('./main.js', import.meta.url);
const bundle = new URL('../bundles/cli/main.js', import.meta.url);
const changedAt = (file: URL) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;
const bundleTime = changedAt(bundle);
const command = process.argv.slice(2).find((word) => !word.startsWith('-'));
const useBundle = command !== 'serve' && bundleTime !== undefined && bundleTime >= (changedAt(compiled) ?? 0);
await import((useBundle ? bundle : compiled).href);
