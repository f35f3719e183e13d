// Extensions run inside `bwrap --unshare-pid`, so a pid an extension reports (say, of a child it
// spawned) is local to its PID namespace: a small number that names some unrelated process on the host,
// and that a fresh namespace hands out again after a restart. These helpers find the host pid behind it.
import { readdirSync, readFileSync } from 'node:fs';

/** State letter and parent pid from /proc/<pid>/stat; undefined once the pid is gone. */
function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces or ')': the fields after the last ')' are safe.
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** True while the process exists and has not exited: a zombie (exited, not yet reaped) counts as dead. */
export function isAlive(pid: number | undefined): boolean {
  const s = pid ? stat(pid) : undefined;
  return s !== undefined && s.state !== 'Z';
}

/** Host pids of every process below `root`. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(Number(entry));
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The process's pid in each PID namespace it belongs to, from ours down to its own (NSpid: in /proc/<pid>/status). */
function namespacePids(pid: number): number[] {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? line[1].trim().split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/**
 * The host pid of the live process below `root` (the host pid of an extension's sandbox) that its own
 * namespace knows as `nsPid`; undefined when there is none. Without a sandbox NSpid holds only the host
 * pid, so the same rule finds `nsPid` itself, provided it runs below `root`.
 */
export function hostPid(root: number, nsPid: number): number | undefined {
  return descendants(root).find((pid) => namespacePids(pid).at(-1) === nsPid && isAlive(pid));
}
