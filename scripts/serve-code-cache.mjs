// `npm run build`, last: the V8 code cache of the bundle `roost serve` runs (dist/bundles/cli/main.code.js,
// see bundle-extensions.mjs), made by a server's start now that everything a start reads is built.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeServeCodeCache } from './code-caches.mjs';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bundles', 'cli', 'main.code.js');
if (await writeServeCodeCache(file)) process.stdout.write('wrote the code cache roost serve starts with\n');
