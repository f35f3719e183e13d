// Test files and test cases per stack, found by the conventions of each stack's test runner. JavaScript
// and TypeScript: the *.test / *.spec and __tests__ names Jest, Vitest, Mocha and node:test use, and the
// test/ and tests/ folders AVA and tap read (their helpers, fixtures and _-files left out, and a file
// there counted only when it calls a test); cases are test(…)/it(…) with their modifiers (AVA's serial
// and failing, each tables counted once) and tap's t.test(…).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProjectFiles } from '../../lib/project-files.js';

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

/** A test(…) or it(…) call, with the modifiers of Jest, Vitest, Mocha, node:test and AVA; tap's t.test(…). */
const JS_CASES = /(?:(?:^|[^\w.$])(?:it|test)(?:\.(?:only|skip|todo|concurrent|serial|failing|each))*\s*\(|(?:^|[^\w.$])(?:t|tap)\.test\s*\()/g;
/** The same without the global flag, whose state a .test() call would move. */
const CALLS_A_TEST = new RegExp(JS_CASES.source);
/** The folders AVA and tap take test files from. */
const RUNNER_FOLDER = /(^|\/)tests?\//;
/** What those runners leave out of them: helpers, fixtures, and files named with a leading underscore. */
const NOT_TESTS = /(^|\/)(helpers?|fixtures?|__helpers?__)\/|(^|\/)_[^/]*$/;

const CONVENTIONS: Convention[] = [
  {
    stack: 'node',
    isTestFile: async (p, text) => {
      if (!/\.[cm]?[jt]sx?$/.test(p) || /\.d\.[cm]?ts$/.test(p)) return false;
      if (/\.(test|spec)\.[cm]?[jt]sx?$/.test(p) || /(^|\/)__tests__\//.test(p)) return true;
      return RUNNER_FOLDER.test(p) && !NOT_TESTS.test(p) && CALLS_A_TEST.test(await text());
    },
    cases: JS_CASES,
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
