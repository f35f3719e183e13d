// Churn from git history: commits, authors, and the files changed most (lines added + removed),
// read through the host's exec capability.
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';

export interface Churn {
  since: string | null;
  commits: number;
  authors: number;
  linesAdded: number;
  linesRemoved: number;
  files: Array<{ path: string; commits: number; added: number; removed: number }>;
}

const RECORD = '\x1e';

export async function churn(host: HostClient, options: { since?: string; limit: number }): Promise<Churn> {
  if (options.since !== undefined && !/^[\w .:+-]+$/.test(options.since)) {
    throw new RoostError('USAGE', `--since "${options.since}" is not a date git understands (e.g. 2024-01-01 or "3 months ago")`);
  }
  const since = options.since === undefined ? '' : ` --since='${options.since}'`;
  // A repository without commits yet has no history to read (git log would fail on the unborn HEAD).
  const result = await host.exec(
    `git rev-parse --git-dir >/dev/null && { git rev-parse -q --verify HEAD >/dev/null || exit 0; git log --no-renames --numstat --format=%x1e%aE${since}; }`,
    { timeout: 120 },
  );
  if (result.code !== 0) {
    throw new RoostError(result.code === 126 ? 'CAPABILITY_DENIED' : 'VALIDATION_ERROR', `git log failed: ${result.stderr.trim() || `exit code ${result.code}`}`);
  }
  const files = new Map<string, { path: string; commits: number; added: number; removed: number }>();
  const authors = new Set<string>();
  let commits = 0;
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const record of result.stdout.split(RECORD).slice(1)) {
    const [author, ...lines] = record.split('\n');
    commits++;
    authors.add(author!.trim());
    for (const line of lines) {
      const [added, removed, path] = line.split('\t');
      if (path === undefined) continue;
      const entry = files.get(path) ?? { path, commits: 0, added: 0, removed: 0 };
      // Binary files show "-" for both counts: they count as changed, with no lines.
      entry.commits++;
      entry.added += Number(added) || 0;
      entry.removed += Number(removed) || 0;
      linesAdded += Number(added) || 0;
      linesRemoved += Number(removed) || 0;
      files.set(path, entry);
    }
  }
  const ranked = [...files.values()].sort((a, b) => b.added + b.removed - (a.added + a.removed) || b.commits - a.commits || a.path.localeCompare(b.path));
  return { since: options.since ?? null, commits, authors: authors.size, linesAdded, linesRemoved, files: ranked.slice(0, options.limit) };
}
