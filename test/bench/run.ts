// `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after the other, and
// passes through the JSON lines each prints (one per figure).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const dir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
let failed = 0;
for (const file of files) {
  const result = await execa(process.execPath, ['--import', 'tsx', join(dir, file)], { stdout: 'inherit', stderr: 'inherit', reject: false });
  if (result.exitCode !== 0) {
    failed++;
    process.stderr.write(`bench ${file} failed with exit code ${result.exitCode}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
