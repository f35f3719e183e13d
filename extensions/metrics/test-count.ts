// Test files and test cases per stack, found by the conventions of each stack's test runner.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface TestCounts {
  stacks: Array<{ stack: string; files: number; cases: number }>;
  files: number;
  cases: number;
}

interface Convention {
  stack: string;
  isTestFile(path: string, text: () => Promise<string>): Promise<boolean>;
  cases: RegExp;
}

const CONVENTIONS: Convention[] = [
  {
    stack: 'node',
    isTestFile: async (p) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(p) || (/(^|\/)__tests__\//.test(p) && /\.[cm]?[jt]sx?$/.test(p)),
    cases: /(?:^|[^\w.])(?:it|test)(?:\.(?:only|skip|todo|concurrent))?\s*\(/g,
  },
  {
    stack: 'python',
    isTestFile: async (p) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(p),
    cases: /^\s*(?:async\s+)?def test\w*\s*\(/gm,
  },
  {
    stack: 'rust',
    isTestFile: async (p, text) => p.endsWith('.rs') && (/(^|\/)tests\//.test(p) || /#\[(?:[\w:]+::)?test\]/.test(await text())),
    cases: /#\[(?:[\w:]+::)?test\]/g,
  },
  { stack: 'go', isTestFile: async (p) => p.endsWith('_test.go'), cases: /^func Test\w*\s*\(/gm },
];

/** Folders that hold dependencies, builds or caches, never the project's own tests. */
const SKIPPED = new Set(['.git', 'node_modules', 'target', 'dist', 'build', '.venv', 'venv', '__pycache__', 'vendor', '.tox', '.next', 'coverage']);
const MAX_FILES = 100_000;

export async function countTests(root: string): Promise<TestCounts> {
  const totals = new Map<string, { stack: string; files: number; cases: number }>();
  for (const path of await listFiles(root)) {
    let cached: string | undefined;
    const text = async () => (cached ??= await readFile(join(root, path), 'utf8').catch(() => ''));
    for (const convention of CONVENTIONS) {
      if (!(await convention.isTestFile(path, text))) continue;
      const entry = totals.get(convention.stack) ?? { stack: convention.stack, files: 0, cases: 0 };
      entry.files++;
      entry.cases += (await text()).match(convention.cases)?.length ?? 0;
      totals.set(convention.stack, entry);
      break;
    }
  }
  const stacks = [...totals.values()].sort((a, b) => a.stack.localeCompare(b.stack));
  return { stacks, files: stacks.reduce((n, s) => n + s.files, 0), cases: stacks.reduce((n, s) => n + s.cases, 0) };
}

async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [root];
  while (pending.length > 0 && files.length < MAX_FILES) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) pending.push(join(dir, entry.name));
      else if (entry.isFile()) files.push(relative(root, join(dir, entry.name)));
    }
  }
  return files.sort();
}
