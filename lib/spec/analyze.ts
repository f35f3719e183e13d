// Reads one batch of project files and describes each: the exported symbols of a source file, the
// outline of a spec document, the package a manifest declares. Runs in-process or in a pool worker.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { extractSymbols, type ExportedSymbol } from './extract.js';
import { classify, type Language, type SpecKind } from './languages.js';
import { readManifest } from './manifest.js';
import { outline } from './markdown.js';

/** Bigger files are listed but not read: generated bundles and data, not code anyone maintains by hand. */
export const MAX_ANALYZED_BYTES = 1024 * 1024;

export type FileAnalysis =
  | { role: 'source'; path: string; language: Language; lines: number; symbols: ExportedSymbol[]; skipped?: string }
  | { role: 'spec'; path: string; kind: SpecKind; title: string | null; headings: string[]; skipped?: string }
  | { role: 'manifest'; path: string; ecosystem: string; name: string | null; skipped?: string };

export interface AnalyzeBatch {
  root: string;
  paths: string[];
}

/** Synchronous reads on purpose: for thousands of small files they beat a trip through libuv's thread pool
 * per file, and nothing else runs on this thread meanwhile (the CLI waits, a worker has one job). */
export function analyzeBatch({ root, paths }: AnalyzeBatch): FileAnalysis[] {
  const results: FileAnalysis[] = [];
  for (const path of paths) {
    const analysis = analyzeFile(root, path);
    if (analysis) results.push(analysis);
  }
  return results;
}

/** null for files that play no part in the map, or that vanished since they were listed. */
function analyzeFile(root: string, path: string): FileAnalysis | null {
  const role = classify(path);
  if (role.role === 'other') return null;
  const full = join(root, path);
  const info = statSync(full, { throwIfNoEntry: false });
  if (!info?.isFile()) return null;
  const { text, skipped } = readSmall(full, info.size);
  switch (role.role) {
    case 'source':
      return { role: 'source', path, language: role.language, lines: countLines(text), symbols: extractSymbols(role.language, text), ...skipped };
    case 'spec':
      return { role: 'spec', path, kind: role.kind, ...outline(text), ...skipped };
    case 'manifest':
      return { role: 'manifest', path, ...readManifest(path, text, basename(dirname(full))), ...skipped };
  }
}

/** The file's text, or why it was not read (too big, or unreadable: listed all the same). */
function readSmall(full: string, size: number): { text: string; skipped: { skipped?: string } } {
  if (size > MAX_ANALYZED_BYTES) return { text: '', skipped: { skipped: `larger than ${MAX_ANALYZED_BYTES / 1024 / 1024} MiB` } };
  try {
    return { text: readFileSync(full, 'utf8'), skipped: {} };
  } catch (err) {
    return { text: '', skipped: { skipped: `unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})` } };
  }
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}
