// Test files and test cases per stack, found by the conventions of each stack's test runner.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProjectFiles } from '../_shared/project-files.js';

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

export async function countTests(root: string): Promise<TestCounts> {
  const totals = new Map<string, { stack: string; files: number; cases: number }>();
  for (const path of await listProjectFiles(root)) {
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
