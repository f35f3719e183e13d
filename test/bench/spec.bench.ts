// `roost spec list` indexing: the built binary on one generated tree just past the pool threshold,
// in-process (--workers 0) and with the worker pool, side by side in one run, best of three each.
// The ratio tells whether the pool pays off on this machine.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { roostBin, writeTree } from '../helpers/cli.js';

const FILES = 6000;
const ROUNDS = 3;

const root = await mkdtemp(join(tmpdir(), 'roost-spec-bench-'));
try {
  const tree: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    const body = Array.from({ length: 8 }, (_, j) => `export function f${i}_${j}(x: number): number {\n  return x + ${j};\n}\n`).join('');
    tree[`pkg${i % 50}/file${i}.ts`] = `${body}function hidden${i}() {}\n`;
  }
  await writeTree(root, tree);
  const workers = Math.min(availableParallelism(), 4);

  const best = async (threads: number) => {
    let fastest = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const { stdout } = await execa(process.execPath, [roostBin, 'spec', 'list', '--json', '--workers', String(threads)], { cwd: root });
      fastest = Math.min(fastest, performance.now() - started);
      const doc = JSON.parse(String(stdout)) as { fileCount: number; indexer: { mode: string } };
      if (doc.fileCount !== FILES || doc.indexer.mode !== (threads === 0 ? 'in-process' : 'workers')) throw new Error('unexpected spec list run');
    }
    return fastest;
  };
  const inProcess = await best(0);
  const pooled = await best(workers);
  const line = (figure: string, value: number, unit: string, target: string) =>
    process.stdout.write(`${JSON.stringify({ bench: 'spec', figure, value: Number(value.toFixed(2)), unit, target })}\n`);
  line(`spec list on ${FILES} files, in-process`, inProcess, 'ms', 'baseline');
  line(`spec list on ${FILES} files, ${workers} workers`, pooled, 'ms', 'below the in-process time');
  line('worker pool speed-up', inProcess / pooled, 'x', '> 1x past the 5,000-file threshold');
} finally {
  await rm(root, { recursive: true, force: true });
}
