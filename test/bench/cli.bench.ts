// The roost command's own cost, measured side by side with its baseline in one run (interleaved, so
// machine noise hits both alike): `roost --version` against `node -e 0`; `roost run test` against
// the bare `npm run test` it runs, in a tiny Node project whose test script does nothing; and a plugin
// command (a sh plugin that reads its init and leaves) against the same script run alone: what roost
// adds to a plugin command (registry, manifest, sandbox, protocol), next to `node -e 0`.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reporter } from './lib/report.js';
import { median } from './lib/stats.js';

const report = reporter('cli');
const roostBin = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** Wall time of one process from spawn to exit, in ms; a failing process fails the bench. */
function time(command: string, args: string[], cwd: string, env: Record<string, string> = {}): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: 'ignore', env: { ...process.env, ...env } });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return elapsed;
}

/** The median of each measure over `runs` interleaved rounds (the order turning each round), after one warm-up each. */
function sideBySide(runs: number, ...measures: Array<() => number>): number[] {
  for (const measure of measures) measure();
  const samples = measures.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < measures.length; j++) {
      const k = (i + j) % measures.length;
      samples[k]!.push(measures[k]!());
    }
  }
  return samples.map(median);
}

const dir = mkdtempSync(join(tmpdir(), 'roost-bench-cli-'));
try {
  const [version, node] = sideBySide(20, () => time(process.execPath, [roostBin, '--version'], dir), () => time(process.execPath, ['-e', '0'], dir));
  report('roost --version cold start vs node -e 0', version / node, 'x', '≤ 1.5×', { roostMs: version, nodeMs: node, runs: 20 });

  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-fixture', private: true, scripts: { test: 'node -e 0' } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'bench-fixture', lockfileVersion: 3, requires: true, packages: {} }));
  const [viaRoost, bare] = sideBySide(15, () => time(process.execPath, [roostBin, 'run', 'test'], dir), () => time('npm', ['run', 'test'], dir));
  report('roost run test overhead over npm run test', viaRoost - bare, 'ms', '< 100 ms', { roostMs: viaRoost, bareMs: bare, runs: 15 });

  const plugin = join(dir, 'hello');
  mkdirSync(join(plugin, 'bin'), { recursive: true });
  writeFileSync(join(plugin, 'plugin.toml'), '[plugin]\nname = "cli-plugin-hello"\nversion = "1.0.0"\ndescription = "Reads init, leaves"\nprotocol = "cli-v1"\n\n[[commands]]\nname = "hello"\ndescription = "Nothing"\nbinary = "bin/hello"\n');
  writeFileSync(join(plugin, 'bin', 'hello'), '#!/bin/sh\nIFS= read -r init || true\n');
  chmodSync(join(plugin, 'bin', 'hello'), 0o755);
  const home = { ROOST_HOME: join(dir, 'roost-home') };
  time(process.execPath, [roostBin, 'plugins', 'install', plugin, '--yes'], dir, home);
  // All three in the same rounds, so the machine's load weighs on each alike.
  const [viaPlugin, alone, nodeAlone] = sideBySide(15,
    () => time(process.execPath, [roostBin, 'hello'], dir, home),
    () => time(join(plugin, 'bin', 'hello'), [], dir),
    () => time(process.execPath, ['-e', '0'], dir));
  report('plugin command overhead (roost hello − the plugin alone) vs node -e 0', (viaPlugin - alone) / nodeAlone, 'x', '≤ 1.5×', {
    roostMs: viaPlugin, pluginAloneMs: alone, nodeMs: nodeAlone, runs: 15,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
