// The roost command's own cost, measured side by side with its baseline in one run (interleaved, so
// machine noise hits both alike): `roost --version` against `node -e 0`, and `roost run test` against
// the bare `npm run test` it runs, in a tiny Node project whose test script does nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reporter } from './lib/report.js';
import { median } from './lib/stats.js';

const report = reporter('cli');
const roostBin = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** Wall time of one process from spawn to exit, in ms; a failing process fails the bench. */
function time(command: string, args: string[], cwd: string): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: 'ignore' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return elapsed;
}

/** Medians of a and b over `runs` interleaved rounds (alternating which goes first), after one warm-up each. */
function sideBySide(runs: number, a: () => number, b: () => number): [number, number] {
  a();
  b();
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      as.push(a());
      bs.push(b());
    } else {
      bs.push(b());
      as.push(a());
    }
  }
  return [median(as), median(bs)];
}

const dir = mkdtempSync(join(tmpdir(), 'roost-bench-cli-'));
try {
  const [version, node] = sideBySide(20, () => time(process.execPath, [roostBin, '--version'], dir), () => time(process.execPath, ['-e', '0'], dir));
  report('roost --version cold start vs node -e 0', version / node, 'x', '≤ 1.5×', { roostMs: version, nodeMs: node, runs: 20 });

  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-fixture', private: true, scripts: { test: 'node -e 0' } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'bench-fixture', lockfileVersion: 3, requires: true, packages: {} }));
  const [viaRoost, bare] = sideBySide(15, () => time(process.execPath, [roostBin, 'run', 'test'], dir), () => time('npm', ['run', 'test'], dir));
  report('roost run test overhead over npm run test', viaRoost - bare, 'ms', '< 100 ms', { roostMs: viaRoost, bareMs: bare, runs: 15 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
