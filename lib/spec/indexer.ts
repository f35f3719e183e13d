// Analyses the files of a project: in-process for small trees, in a tinypool of worker threads once
// the tree is big enough for the pool's start-up cost to pay off.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Tinypool from 'tinypool';
import { distDir } from '../paths.js';
import { analyzeBatch, type FileAnalysis } from './analyze.js';
import { classify } from './languages.js';

/**
 * Below this many files to read, threads cost more than they save: a pool costs ~100-300 ms to start
 * (each worker loads and warms up its own copy of the analyser) and results are copied back, while
 * in-process analysis takes ~0.1 ms per file. test/bench/spec.bench.ts measures both sides.
 */
export const PARALLEL_THRESHOLD = 5000;
const MAX_AUTO_WORKERS = 4;

export interface IndexerRun {
  mode: 'in-process' | 'workers';
  workers: number;
  analysed: FileAnalysis[];
}

/** `workers`: undefined picks by size; 0 forces in-process; n forces a pool of n threads. */
export async function analyseProject(root: string, files: string[], workers?: number): Promise<IndexerRun> {
  const relevant = files.filter((path) => classify(path).role !== 'other');
  const cores = availableParallelism();
  const threads = workers ?? (relevant.length > PARALLEL_THRESHOLD && cores > 1 ? Math.min(cores, MAX_AUTO_WORKERS) : 0);
  if (threads === 0) return { mode: 'in-process', workers: 0, analysed: analyzeBatch({ root, paths: relevant }) };

  const pool = new Tinypool({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
  });
  try {
    const size = Math.max(25, Math.ceil(relevant.length / (threads * 4)));
    const batches: string[][] = [];
    for (let i = 0; i < relevant.length; i += size) batches.push(relevant.slice(i, i + size));
    const results = (await Promise.all(batches.map((paths) => pool.run({ root, paths })))) as FileAnalysis[][];
    return { mode: 'workers', workers: threads, analysed: results.flat() };
  } finally {
    await pool.destroy();
  }
}

/** The worker beside this module; from the CLI's bundle (where this module is a chunk), the compiled one. */
function workerFile(): string {
  const beside = new URL('./worker.js', import.meta.url);
  return existsSync(beside) ? beside.href : pathToFileURL(join(distDir, 'lib', 'spec', 'worker.js')).href;
}
