// Coverage reports test runners leave behind, and how many lines each says were covered. Formats:
// lcov (LF/LH per file), Istanbul's json-summary (total.lines), Cobertura XML (lines-covered /
// lines-valid of the root element) and Go's cover profile (statements, counted as lines).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';

export type Format = 'lcov' | 'istanbul-summary' | 'cobertura' | 'go';

export interface Totals {
  covered: number;
  total: number;
  files: number;
}

/** Where runners write their reports, the most common first (c8/nyc/jest/vitest, coverage.py, cargo-llvm-cov, go). */
export const KNOWN_REPORTS: Array<{ file: string; format: Format }> = [
  { file: 'coverage/lcov.info', format: 'lcov' },
  { file: 'lcov.info', format: 'lcov' },
  { file: 'coverage/coverage-summary.json', format: 'istanbul-summary' },
  { file: 'coverage.xml', format: 'cobertura' },
  { file: 'coverage/cobertura-coverage.xml', format: 'cobertura' },
  { file: 'cobertura.xml', format: 'cobertura' },
  { file: 'coverage.out', format: 'go' },
  { file: 'cover.out', format: 'go' },
];

export function findReport(root: string): { file: string; format: Format } | undefined {
  return KNOWN_REPORTS.find((r) => existsSync(join(root, r.file)));
}

/** The format of a report named with --report, from its name or, failing that, its first bytes. */
export function guessFormat(file: string, text: string): Format {
  if (file.endsWith('.info') || /^(TN|SF):/m.test(text.slice(0, 200))) return 'lcov';
  if (file.endsWith('.json')) return 'istanbul-summary';
  if (file.endsWith('.xml')) return 'cobertura';
  if (text.startsWith('mode: ')) return 'go';
  throw new RoostError('VALIDATION_ERROR', `${file}: not a coverage report roost knows (lcov, Istanbul json-summary, Cobertura XML, Go cover profile)`);
}

export async function readTotals(path: string, format: Format): Promise<Totals> {
  const text = await readFile(path, 'utf8');
  const totals = PARSERS[format](text);
  if (!totals) throw new RoostError('VALIDATION_ERROR', `${path} is not a valid ${format} report`);
  return totals;
}

const PARSERS: Record<Format, (text: string) => Totals | undefined> = {
  lcov(text) {
    const sum = (key: string) => [...text.matchAll(new RegExp(`^${key}:(\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
    const files = text.match(/^SF:/gm)?.length ?? 0;
    return files === 0 ? undefined : { covered: sum('LH'), total: sum('LF'), files };
  },
  'istanbul-summary'(text) {
    let data: { total?: { lines?: { covered?: unknown; total?: unknown } } } & Record<string, unknown>;
    try {
      data = JSON.parse(text);
    } catch {
      return undefined;
    }
    const lines = data.total?.lines;
    if (typeof lines?.covered !== 'number' || typeof lines.total !== 'number') return undefined;
    return { covered: lines.covered, total: lines.total, files: Object.keys(data).length - 1 };
  },
  cobertura(text) {
    const root = /<coverage\b[^>]*>/.exec(text)?.[0];
    const attr = (name: string) => (root ? /\d+/.exec(new RegExp(`\\b${name}="([^"]*)"`).exec(root)?.[1] ?? '')?.[0] : undefined);
    const covered = attr('lines-covered');
    const total = attr('lines-valid');
    if (covered === undefined || total === undefined) return undefined;
    return { covered: Number(covered), total: Number(total), files: text.match(/<class\b/g)?.length ?? 0 };
  },
  go(text) {
    if (!text.startsWith('mode: ')) return undefined;
    // file:startLine.col,endLine.col statements count — a block may be listed once per test binary.
    const blocks = new Map<string, { statements: number; hit: boolean }>();
    for (const line of text.split('\n').slice(1)) {
      const m = /^(.+?:\d+\.\d+,\d+\.\d+) (\d+) (\d+)$/.exec(line.trim());
      if (!m) continue;
      const block = blocks.get(m[1]!) ?? { statements: Number(m[2]), hit: false };
      block.hit ||= Number(m[3]) > 0;
      blocks.set(m[1]!, block);
    }
    const files = new Set([...blocks.keys()].map((k) => k.slice(0, k.lastIndexOf(':'))));
    const all = [...blocks.values()];
    return {
      covered: all.filter((b) => b.hit).reduce((n, b) => n + b.statements, 0),
      total: all.reduce((n, b) => n + b.statements, 0),
      files: files.size,
    };
  },
};
