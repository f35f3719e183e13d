// `roost coverage [--min <percent>] [--report <file>] [--json]`: the line coverage the last test run
// reported (roost does not run the tests: `roost run test` with the runner's coverage option does).
// Exit 1 below --min, so CI and pre_push hooks can gate on it.
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { findReport, guessFormat, KNOWN_REPORTS, readTotals } from './reports.js';

const USAGE = 'usage: roost coverage [--min <percent>] [--report <file>] [--json]\n  Line coverage from the report of the last test run (coverage/lcov.info, coverage/coverage-summary.json,\n  coverage.xml, coverage.out, …) or --report <file>. --min: exit 1 when coverage is below it.';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, { min: { type: 'string' }, report: { type: 'string' }, json: { type: 'boolean' } });
  const min = values.min === undefined ? null : Number(values.min);
  if (min !== null && (values.min!.trim() === '' || !Number.isFinite(min) || min < 0 || min > 100)) {
    throw new RoostError('USAGE', `--min "${values.min}" is not a percentage from 0 to 100`);
  }
  const meta = await ctx.host.metadata(['root']);
  const root = typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
  const report = values.report === undefined ? findReport(root) : await named(resolve(values.report));
  if (!report) {
    throw new RoostError('NOT_FOUND', `no coverage report in ${root} (looked for ${KNOWN_REPORTS.map((r) => r.file).join(', ')}); run the tests with coverage first, or name one with --report`);
  }
  const path = resolve(root, report.file);
  const totals = await readTotals(path, report.format);
  // An empty report (no lines at all) counts as fully covered: there is nothing uncovered.
  const percent = totals.total === 0 ? 100 : Math.round((totals.covered / totals.total) * 10000) / 100;
  const ok = min === null || percent >= min;
  if (values.json) ctx.json({ root, report: { file: path, format: report.format }, lines: { covered: totals.covered, total: totals.total, percent }, files: totals.files, min }, ok);
  else {
    const verdict = min === null ? '' : ok ? ` (minimum ${min}%: met)` : ` (below the minimum of ${min}%)`;
    ctx.print(`Line coverage ${percent}%: ${totals.covered} of ${totals.total} lines in ${totals.files} files${verdict}\n  from ${path} (${report.format})`);
  }
  return ok ? 0 : 1;
}, USAGE);

async function named(path: string): Promise<{ file: string; format: ReturnType<typeof guessFormat> }> {
  if (!existsSync(path)) throw new RoostError('USAGE', `--report ${path} does not exist`);
  return { file: path, format: guessFormat(path, await readFile(path, 'utf8')) };
}
