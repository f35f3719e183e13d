// `roost github checks [--ref r] [--repo o/n] [--json]` (also `roost checks`): the CI check runs of the current branch.
// Exit 0 when all passed, 1 when one failed, 8 while some are still pending (as `gh pr checks`).
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { GitHubApi } from './api.js';
import { repoContext, repoPath } from './repo.js';

interface CheckRun {
  name: string;
  status: string;
  conclusion: string | null;
  html_url?: string | null;
}

const PASSING = new Set(['success', 'neutral', 'skipped']);

const USAGE = 'usage: roost github checks [--ref <branch|sha>] [--repo <owner/name>] [--json]\n       roost checks (the same)\n  Exit 0 when all passed, 1 when one failed, 8 while some are pending.';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, { ref: { type: 'string' }, repo: { type: 'string' }, json: { type: 'boolean' } });
  const api = GitHubApi.fromEnv(process.env);
  const repo = await repoContext(ctx, values.repo);
  const ref = values.ref ?? repo.branch;
  if (!ref) throw new RoostError('USAGE', 'not on a branch; pass --ref <branch or commit>');
  const data = await api.request<{ total_count: number; check_runs: CheckRun[] }>(
    'GET', `${repoPath(repo)}/commits/${encodeURIComponent(ref)}/check-runs?per_page=100`,
  );
  const checks = data.check_runs.map((c) => ({
    name: c.name,
    status: c.status,
    conclusion: c.conclusion,
    url: c.html_url ?? null,
    state: c.status !== 'completed' ? 'pending' : PASSING.has(c.conclusion ?? '') ? 'pass' : 'fail',
  }));
  const summary = {
    total: checks.length,
    passed: checks.filter((c) => c.state === 'pass').length,
    failed: checks.filter((c) => c.state === 'fail').length,
    pending: checks.filter((c) => c.state === 'pending').length,
  };
  const code = summary.failed > 0 ? 1 : summary.pending > 0 ? 8 : 0;
  if (values.json) {
    ctx.json({ repository: `${repo.owner}/${repo.repo}`, ref, checks, summary }, code === 0);
  } else if (checks.length === 0) {
    ctx.print(`No checks on ${ref}.`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    ctx.print([
      ...checks.map((c) => `${c.state.padEnd(7)} ${c.name.padEnd(width)}  ${c.conclusion ?? c.status}${c.url ? `  ${c.url}` : ''}`),
      `${summary.passed} passed, ${summary.failed} failed, ${summary.pending} pending`,
    ].join('\n'));
  }
  return code;
}, USAGE);
