// Where the checkout and its built CLI are, for helpers that must not load more than that.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const roostBin = join(repoRoot, 'dist/cli/bin.js');
