// Processes as Linux's /proc shows them: the children of a process (of every one of its threads) and
// its whole tree. An extension's pid is its sandbox's outer process; the extension runs below it.
// Shared by the kernel and the sessions runner (a sandboxed command's process count and memory).
import { readdirSync, readFileSync } from 'node:fs';

/** The pids of a process's children, or none once it is gone. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const tid of readOr(() => readdirSync(`/proc/${pid}/task`), [] as string[])) {
    const listed = readOr(() => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8'), '').trim();
    if (listed) children.push(...listed.split(' ').map(Number));
  }
  return children;
}

/** The pid and every descendant. */
export function processTree(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap(processTree)];
}

/** /proc changes under us: what vanished reads as the fallback. */
export function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
