// `roost metrics [--churn] [--tests] [--json]`: churn from git history and test counts per stack.
// Without --churn or --tests it reports both (churn is null outside a git repository).
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { RoostError } from '../../protocol/errors.js';
import { churn, type Churn } from './churn.js';
import { countTests, type TestCounts } from './test-count.js';
import { count } from '../../lib/plural.js';

const USAGE = 'usage: roost metrics [--churn] [--tests] [--since <date>] [--limit <n>] [--json]\n  --churn  commits, authors and the most changed files (git log)\n  --tests  test files and cases per stack\n  Without --churn or --tests: both.';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    churn: { type: 'boolean' },
    tests: { type: 'boolean' },
    json: { type: 'boolean' },
    since: { type: 'string' },
    limit: { type: 'string' },
  });
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new RoostError('USAGE', '--limit must be a positive whole number');
  const both = !values.churn && !values.tests;
  const meta = await ctx.host.metadata(['root', 'name', 'git']);
  const root = typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();

  let churnResult: Churn | null | undefined;
  if (values.churn) churnResult = await churn(ctx.host, { since: values.since, limit });
  else if (both) churnResult = meta.git ? await churn(ctx.host, { since: values.since, limit }) : null;
  const tests = values.tests || both ? await countTests(root) : undefined;

  if (values.json) {
    ctx.json({ root, ...(churnResult !== undefined ? { churn: churnResult } : {}), ...(tests ? { tests } : {}) });
  } else {
    ctx.print(describe(root, churnResult, tests));
  }
  return 0;
}, USAGE);

function describe(root: string, churnResult: Churn | null | undefined, tests: TestCounts | undefined): string {
  const lines = [`Metrics of ${root}`];
  if (churnResult === null) lines.push('Churn: not a git repository');
  if (churnResult) {
    lines.push(`Churn${churnResult.since ? ` since ${churnResult.since}` : ''}: ${count(churnResult.commits, 'commit')} by ${count(churnResult.authors, 'author')}, +${churnResult.linesAdded} -${churnResult.linesRemoved}`);
    lines.push(...churnResult.files.map((f) => `  ${f.path}: ${count(f.commits, 'commit')}, +${f.added} -${f.removed}`));
  }
  if (tests) {
    lines.push(`Tests: ${count(tests.files, 'file')}, ${count(tests.cases, 'case')}`);
    lines.push(...tests.stacks.map((s) => `  ${s.stack}: ${count(s.files, 'file')}, ${count(s.cases, 'case')}`));
  }
  return lines.join('\n');
}
