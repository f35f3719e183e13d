// `roost context [--commits <n>] [--json]`: what an agent needs to know before working on the project,
// from the host's metadata (git state and log) and roost's own stack and task detection.
import { RoostError } from '../../protocol/errors.js';
import { detectProject, listTasks, taskArgv } from '../../lib/project/detect.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { projectSizes, type Sizes } from './sizes.js';

interface Commit {
  hash: string;
  author: string;
  date: string;
  subject: string;
}

interface Git {
  branch: string | null;
  dirty: boolean;
  remote: string | null;
  changes: Array<{ status: string; path: string }>;
  commits: Commit[];
}

/** The host's git_log holds at most 20 commits. */
const MAX_COMMITS = 20;

const USAGE = 'usage: roost context [--commits <n>] [--json]\n  The project at a glance: stacks, the tasks roost run offers, git branch and status, the last\n  --commits (default 10, at most 20) commits, and file sizes per extension.';

runPlugin(async (ctx) => {
  const { values } = parseFlags(ctx.init.args, { commits: { type: 'string', default: '10' }, json: { type: 'boolean' } });
  const limit = Number(values.commits);
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_COMMITS) throw new RoostError('USAGE', `--commits "${values.commits}" is not a whole number from 0 to ${MAX_COMMITS}`);
  const meta = await ctx.host.metadata(['root', 'name', 'git', 'git_status', 'git_log']);
  const root = typeof meta.root === 'string' ? meta.root : process.cwd();
  const project = detectProject(root);
  const stacks = project.stacks.map((s) => ({ id: s.id, tool: s.tool, marker: s.marker }));
  const tasks = listTasks(project).map((t) => ({ name: t.name, stack: t.stack.id, command: taskArgv(t, []).join(' ') }));
  const gitMeta = meta.git as { branch: string | null; dirty: boolean; remote: string | null } | null;
  const git: Git | null = gitMeta && {
    branch: gitMeta.branch,
    dirty: gitMeta.dirty,
    remote: gitMeta.remote,
    changes: (meta.git_status as Git['changes']) ?? [],
    commits: ((meta.git_log as Commit[]) ?? []).slice(0, limit),
  };
  const sizes = await projectSizes(root, 10);
  const name = typeof meta.name === 'string' ? meta.name : root;
  if (values.json) ctx.json({ name, root, stacks, tasks, git, sizes });
  else ctx.print(describe(name, root, stacks, tasks, git, sizes));
  return 0;
}, USAGE);

function describe(name: string, root: string, stacks: Array<{ id: string; tool: string; marker: string }>, tasks: Array<{ name: string; command: string }>, git: Git | null, sizes: Sizes): string {
  const lines = [`# ${name} (${root})`, ''];
  lines.push(`Stacks: ${stacks.length === 0 ? 'none detected' : stacks.map((s) => `${s.id} (${s.tool}, ${s.marker})`).join(', ')}`);
  lines.push(`Tasks (roost run <task>):${tasks.length === 0 ? ' none' : ''}`, ...tasks.map((t) => `  ${t.name}: ${t.command}`));
  if (!git) lines.push('Git: not a repository');
  else {
    lines.push(`Git: branch ${git.branch ?? '(detached)'}${git.remote ? `, remote ${git.remote}` : ''}, ${git.dirty ? `${git.changes.length} uncommitted changes` : 'clean'}`);
    lines.push(...git.changes.map((c) => `  ${c.status} ${c.path}`));
    if (git.commits.length > 0) lines.push('Recent commits:', ...git.commits.map((c) => `  ${c.hash.slice(0, 10)} ${c.date.slice(0, 10)} ${c.author}: ${c.subject}`));
  }
  lines.push(`Size: ${sizes.files} files, ${sizes.bytes} bytes; by extension: ${sizes.byExtension.map((e) => `${e.extension} ${e.files} (${e.bytes} B)`).join(', ')}`);
  return lines.join('\n');
}
