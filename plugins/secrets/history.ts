// The lines every commit of the git history added, read fast: the commits (`git rev-list --all`) are
// shared out round-robin among one `git log -p` per core, each fed its commits on stdin, and each stream
// is cut into lines and parsed synchronously a chunk at a time (no await per line). Every commit is
// diffed once, against its first parent, as `git log -p` does; merge commits show no diff of their own.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { RoostError } from '../../protocol/errors.js';
import { git } from './sources.js';

export interface AddedLine {
  commit: string;
  file: string;
  /** The line's number in the commit's version of the file. */
  line: number;
  text: string;
}

/** Commits in history order (newest first), for ordering findings and telling progress. */
export async function historyCommits(root: string): Promise<string[]> {
  const { code, stdout, stderr } = await git(root, ['rev-list', '--all']);
  if (code !== 0) throw new RoostError('VALIDATION_ERROR', `git rev-list failed: ${stderr.trim() || `exit code ${code}`}`);
  return stdout.split('\n').filter(Boolean);
}

/** Calls `onLine` for each added line, and `onCommit` once a commit's patch has been read. */
export async function readHistory(root: string, commits: string[], onLine: (added: AddedLine) => void, onCommit: () => void): Promise<void> {
  const streams = Math.max(1, Math.min(availableParallelism(), 4, commits.length));
  const shares = Array.from({ length: streams }, (_, i) => commits.filter((_, at) => at % streams === i));
  await Promise.all(shares.map((share) => readPatches(root, share, onLine, onCommit)));
}

const COMMIT = '\x1ecommit ';

function readPatches(root: string, commits: string[], onLine: (added: AddedLine) => void, onCommit: () => void): Promise<void> {
  const child = spawn('git', ['-c', 'core.quotePath=false', 'log', '--stdin', '--no-walk=unsorted', '-p', '--no-color', '--no-ext-diff', '--no-renames', '--format=%x1ecommit %H'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(`${commits.join('\n')}\n`);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let commit = '';
  let file: string | undefined;
  let line = 0;
  // "+++ " names the file only in a diff's header: inside a hunk it is an added line starting with "++ ".
  let header = false;
  const take = (text: string) => {
    if (text.startsWith(COMMIT)) {
      if (commit) onCommit();
      commit = text.slice(COMMIT.length);
      file = undefined;
    } else if (text.startsWith('diff --git ')) {
      header = true;
      file = undefined;
    } else if (header && text.startsWith('+++ ')) {
      file = text === '+++ /dev/null' ? undefined : text.slice(6);
    } else if (text.startsWith('@@ ')) {
      header = false;
      line = Number(/\+(\d+)/.exec(text)?.[1] ?? 0);
    } else if (file !== undefined && text.startsWith('+')) {
      onLine({ commit, file, line: line++, text: text.slice(1) });
    } else if (file !== undefined && text.startsWith(' ')) {
      line++;
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop()!;
    for (const text of lines) take(text);
  });
  return new Promise((resolve, reject) => {
    child.on('error', (err) => reject(new RoostError('VALIDATION_ERROR', `git log failed: ${err.message}`)));
    child.on('close', (code) => {
      const last = rest + decoder.end();
      if (last) take(last);
      if (commit) onCommit();
      if (code === 0) resolve();
      else reject(new RoostError('VALIDATION_ERROR', `git log failed: ${stderr.trim() || `exit code ${code}`}`));
    });
  });
}
