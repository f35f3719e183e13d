// `roost secrets --scan [--no-history] [--entropy <bits>] [--json]`: secrets in the working tree and in
// every commit of the git history. Exit 1 when any is found, so CI and pre_push hooks can gate on it.
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin, type PluginContext } from '../../sdk/plugin-client.js';
import { DEFAULT_ENTROPY } from './rules.js';
import { historyCommits, readHistory } from './history.js';
import { scanLine } from './scan.js';
import { fileLines, hasCommits, isGitRepo, workingTreeFiles } from './sources.js';

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
  const files = await workingTreeFiles(root, git);
  const history = git && !values['no-history'] && (await hasCommits(root));
  // The tree and the history are read side by side; each is ordered on its own afterwards.
  const [tree, past] = await Promise.all([scanTree(root, files, entropy), history ? scanHistory(ctx, root, entropy) : []]);
  const findings = [...tree, ...past];
  const ok = findings.length === 0;
  if (values.json) ctx.json({ root, files: files.length, history, findings }, ok);
  else ctx.print(describe(root, files.length, history, findings));
  return ok ? 0 : 1;
}, USAGE);

async function projectRoot(ctx: PluginContext): Promise<string> {
  const meta = await ctx.host.metadata(['root']);
  return typeof meta.root === 'string' ? meta.root : ctx.init.project?.root ?? process.cwd();
}

/** Files this many at a time: enough to keep the disk busy, few enough not to hold a tree in memory. */
const FILES_AT_ONCE = 16;

async function scanTree(root: string, files: string[], entropy: number): Promise<Finding[]> {
  const byFile: Finding[][] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < files.length; at = next++) {
      byFile[at] = (await fileLines(root, files[at]!)).flatMap((l) =>
        scanLine(l.text, entropy, l.file).map((m) => ({ source: 'tree' as const, file: l.file, line: l.line, commit: null, rule: m.rule, match: m.match.trim() })),
      );
    }
  };
  await Promise.all(Array.from({ length: FILES_AT_ONCE }, worker));
  return byFile.flat();
}

/** Progress every this many commits (and at the end). */
const PROGRESS_EVERY = 100;

async function scanHistory(ctx: PluginContext, root: string, entropy: number): Promise<Finding[]> {
  const commits = await historyCommits(root);
  const order = new Map(commits.map((commit, at) => [commit, at]));
  const found: Finding[] = [];
  let read = 0;
  const tell = () => ctx.host.progress({ message: 'scanning the git history', current: read, total: commits.length, done: read === commits.length });
  await readHistory(
    root,
    commits,
    (added) => {
      for (const m of scanLine(added.text, entropy, added.file)) found.push({ source: 'history', file: added.file, line: added.line, commit: added.commit, rule: m.rule, match: m.match.trim() });
    },
    () => {
      read++;
      if (read % PROGRESS_EVERY === 0 || read === commits.length) tell();
    },
  );
  // Newest commit first, as git log lists them, whichever stream read it.
  return found.sort((a, b) => order.get(a.commit!)! - order.get(b.commit!)! || a.file.localeCompare(b.file) || a.line - b.line);
}

function describe(root: string, files: number, history: boolean, findings: Finding[]): string {
  const scope = `${files} files${history ? ' and the git history' : ''} in ${root}`;
  if (findings.length === 0) return `No secrets found (${scope}).`;
  return [
    `${findings.length} possible secrets (${scope}):`,
    ...findings.map((f) => `  ${f.commit ? `${f.commit.slice(0, 12)} ` : ''}${f.file}:${f.line} [${f.rule}] ${f.match}`),
  ].join('\n');
}
