// `roost spec list`: the spec index and semantic project map — packages, modules with their exported
// symbols, and the project's spec documents.
import type { CliContext } from '../context.js';
import { usageError, type CommandResult } from '../output.js';
import { findProjectRoot } from '../../extensions/_shared/project/detect.js';
import { listProjectFiles } from '../../extensions/_shared/spec/files.js';
import { PARALLEL_THRESHOLD, analyseProject } from '../../extensions/_shared/spec/indexer.js';
import { buildProjectMap, type ProjectMap } from '../../extensions/_shared/spec/project-map.js';
import type { CommandInput } from '../tree.js';
import { count } from '../../extensions/_shared/plural.js';

const MAX_WORKERS = 64;

export async function handler(input: CommandInput, ctx: CliContext): Promise<CommandResult> {
  const workers = workerCount(input.options.workers);
  const root = findProjectRoot(ctx.cwd);
  const listing = await listProjectFiles(root);
  const run = await analyseProject(root, listing.files, workers);
  const map = buildProjectMap(run.analysed);
  return {
    data: {
      root,
      listing: listing.source,
      fileCount: listing.files.length,
      indexer: { mode: run.mode, workers: run.workers, threshold: PARALLEL_THRESHOLD },
      ...map,
    },
    text: describe(root, listing.files.length, map),
  };
}

function workerCount(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Array.isArray(value) || !Number.isInteger(n) || n < 0 || n > MAX_WORKERS) {
    throw usageError(`--workers must be a whole number from 0 to ${MAX_WORKERS} (got "${String(value)}")`);
  }
  return n;
}

function describe(root: string, fileCount: number, map: ProjectMap): string {
  const lines = [`${root}: ${count(fileCount, 'file')}, ${count(map.modules.length, 'module')}, ${count(map.packages.length, 'package')}, ${count(map.specs.length, 'spec document')}`];
  if (map.packages.length) {
    lines.push('', 'Packages');
    for (const p of map.packages) lines.push(`  ${p.path.padEnd(30)} ${p.manifest.padEnd(16)} ${p.name ?? '(unnamed)'}`);
  }
  if (map.modules.length) {
    lines.push('', 'Modules');
    for (const m of map.modules) {
      const names = [...new Set(m.files.flatMap((f) => f.symbols.map((s) => s.name)))];
      const preview = names.length > 6 ? `${names.slice(0, 6).join(', ')}, …` : names.join(', ');
      lines.push(`  ${m.path.padEnd(30)} ${m.languages.join('+').padEnd(12)} ${count(m.files.length, 'file').padStart(10)}  ${preview}`);
    }
  }
  if (map.specs.length) {
    lines.push('', 'Specs');
    for (const s of map.specs) lines.push(`  ${s.path.padEnd(40)} ${s.kind.padEnd(7)} ${s.title ?? ''}`);
  }
  return lines.join('\n');
}
