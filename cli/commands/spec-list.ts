// `roost spec list`: the spec index and semantic project map — packages, modules with their exported
// symbols, and the project's spec documents.
import { columns } from '../columns.js';
import type { CliContext } from '../context.js';
import { usageError, type CommandResult } from '../output.js';
import { findProjectRoot } from '../../lib/project/detect.js';
import { listProjectFiles } from '../../lib/spec/files.js';
import { PARALLEL_THRESHOLD, analyseProject } from '../../lib/spec/indexer.js';
import { buildProjectMap, type ProjectMap } from '../../lib/spec/project-map.js';
import type { CommandInput } from '../tree.js';
import { count } from '../../lib/plural.js';

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
    lines.push('', 'Packages', ...columns(map.packages.map((p) => [p.path, p.manifest, p.name ?? '(unnamed)'])));
  }
  if (map.modules.length) {
    const rows = map.modules.map((m) => {
      const names = [...new Set(m.files.flatMap((f) => f.symbols.map((s) => s.name)))];
      const preview = names.length > 6 ? `${names.slice(0, 6).join(', ')}, …` : names.join(', ');
      return [m.path, m.languages.join('+'), count(m.files.length, 'file'), preview];
    });
    lines.push('', 'Modules', ...columns(rows, { alignRight: [2] }));
  }
  if (map.specs.length) {
    lines.push('', 'Specs', ...columns(map.specs.map((s) => [s.path, s.kind, s.title ?? ''])));
  }
  return lines.join('\n');
}
