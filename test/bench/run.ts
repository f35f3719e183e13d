// `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after the other, and
// passes through the JSON lines each prints (one per figure).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const dir = dirname(fileURLToPath(import.meta.url));
const ACCESS_LINE = /^\S+ access /;
const only = process.argv.slice(2);
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
let failed = 0;
for (const file of files) {
  // A server a bench runs in-process writes its access log (one line per request) on this stderr: kept
  // out of the output, where it would bury the figures. The lines are still written, as in production.
  // Benches measure servers as they ship: without the tests' response checks (ROOST_CHECK_RESPONSES).
  const bench = execa(process.execPath, ['--import', 'tsx', join(dir, file)], { env: { ROOST_CHECK_RESPONSES: '0' }, stdout: 'inherit', stderr: 'pipe', buffer: false, reject: false });
  createInterface({ input: bench.stderr! }).on('line', (line) => {
    if (!ACCESS_LINE.test(line)) process.stderr.write(`${line}\n`);
  });
  const result = await bench;
  if (result.exitCode !== 0) {
    failed++;
    process.stderr.write(`bench ${file} failed with exit code ${result.exitCode}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
