// `roost secrets --scan [--no-history] [--entropy <bits>] [--json]`: secrets in the working tree and in
// every commit of the git history. Exit 1 when any is found, so CI and pre_push hooks can gate on it.
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin, type PluginContext } from '../_shared/plugin-client.js';
import { DEFAULT_ENTROPY } from './rules.js';
import { scanLine } from './scan.js';
import { fileLines, hasCommits, historyLines, isGitRepo, workingTreeFiles, type SourceLine } from './sources.js';

interface Finding {
  source: 'tree' | 'history';
  file: string;
  line: number;
  commit: string | null;
  rule: string;
  match: string;
}

const USAGE = 'usage: roost secrets --scan [--no-history] [--entropy <bits>] [--json]\n  Scans the working tree and every commit (git log -p --all) for AWS, GitHub, GitLab and Slack tokens,\n  private keys and high-entropy values assigned to secret-like names. Exit 1 when any is found.\n  --no-history      the working tree only\n  --entropy <bits>  Shannon entropy threshold of the generic rule (default 3.5 bits per character)';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, {
    scan: { type: 'boolean' },
    'no-history': { type: 'boolean' },
    entropy: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (!values.scan) throw new RoostError('USAGE', 'roost secrets needs --scan (see roost secrets --help)');
  const entropy = values.entropy === undefined ? DEFAULT_ENTROPY : Number(values.entropy);
  if (!Number.isFinite(entropy) || entropy < 0 || entropy > 8) throw new RoostError('USAGE', `--entropy "${values.entropy}" is not a number of bits between 0 and 8`);
  const root = await projectRoot(ctx);
  const git = await isGitRepo(root);
  const findings: Finding[] = [];
  const files = await workingTreeFiles(root, git);
  for (const file of files) findings.push(...(await collect('tree', fileLines(root, file), entropy)));
  const history = git && !values['no-history'] && (await hasCommits(root));
  if (history) findings.push(...(await collect('history', historyLines(root), entropy)));
  const ok = findings.length === 0;
  if (values.json) ctx.json({ root, files: files.length, history, findings }, ok);
  else ctx.print(describe(root, files.length, history, findings));
  return ok ? 0 : 1;
}, USAGE);

async function projectRoot(ctx: PluginContext): Promise<string> {
  const meta = await ctx.host.metadata(['root']);
  return typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
}

async function collect(source: Finding['source'], lines: AsyncIterable<SourceLine>, entropy: number): Promise<Finding[]> {
  const found: Finding[] = [];
  for await (const l of lines) {
    for (const m of scanLine(l.text, entropy)) found.push({ source, file: l.file, line: l.line, commit: l.commit ?? null, rule: m.rule, match: m.match.trim() });
  }
  return found;
}

function describe(root: string, files: number, history: boolean, findings: Finding[]): string {
  const scope = `${files} files${history ? ' and the git history' : ''} in ${root}`;
  if (findings.length === 0) return `No secrets found (${scope}).`;
  return [
    `${findings.length} possible secrets (${scope}):`,
    ...findings.map((f) => `  ${f.commit ? `${f.commit.slice(0, 12)} ` : ''}${f.file}:${f.line} [${f.rule}] ${f.match}`),
  ].join('\n');
}
