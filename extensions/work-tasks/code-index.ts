// Code intelligence over a project's source, from the index `roost spec list` builds (lib/spec): the
// exported symbols of each source file, and the lines of those files that name a symbol.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProjectFiles } from '../../lib/spec/files.js';
import { analyseProject } from '../../lib/spec/indexer.js';
import { MAX_ANALYZED_BYTES } from '../../lib/spec/analyze.js';

export interface SymbolHit {
  name: string;
  kind: string;
  file: string;
  line: number;
  language: string;
}

export interface ReferenceHit {
  file: string;
  line: number;
  text: string;
  definition: boolean;
}

async function sources(root: string) {
  const listing = await listProjectFiles(root);
  // In-process: this extension runs without worker threads.
  const run = await analyseProject(root, listing.files, 0);
  return run.analysed.flatMap((f) => (f.role === 'source' && !f.skipped ? [f] : []));
}

export async function codeSymbols(root: string, filter: { query?: string; kind?: string; path?: string }, limit: number): Promise<{ symbols: SymbolHit[]; truncated: boolean }> {
  const query = filter.query?.toLowerCase();
  const hits: SymbolHit[] = [];
  for (const file of await sources(root)) {
    if (filter.path && !file.path.startsWith(filter.path)) continue;
    for (const s of file.symbols) {
      if (query && !s.name.toLowerCase().includes(query)) continue;
      if (filter.kind && s.kind !== filter.kind) continue;
      hits.push({ name: s.name, kind: s.kind, file: file.path, line: s.line, language: file.language });
    }
  }
  return { symbols: hits.slice(0, limit), truncated: hits.length > limit };
}

export async function findReferences(root: string, symbol: string, limit: number): Promise<{ references: ReferenceHit[]; truncated: boolean }> {
  const word = new RegExp(`(?<![\\w$])${symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
  const hits: ReferenceHit[] = [];
  for (const file of await sources(root)) {
    const defined = new Set(file.symbols.filter((s) => s.name === symbol).map((s) => s.line));
    const text = await readFile(join(root, file.path), 'utf8').catch(() => '');
    if (text.length > MAX_ANALYZED_BYTES || !word.test(text)) continue;
    text.split('\n').forEach((line, i) => {
      if (word.test(line)) hits.push({ file: file.path, line: i + 1, text: line.trim().slice(0, 300), definition: defined.has(i + 1) });
    });
    if (hits.length > limit) break;
  }
  return { references: hits.slice(0, limit), truncated: hits.length > limit };
}
