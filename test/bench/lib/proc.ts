// What Linux reports about processes (/proc): resident memory of a process tree, CPU time of a process.
// VmRSS counts every page a process maps, including the pages it shares with other processes (the
// node binary's code, above all); PSS divides each shared page among the processes that map it, so a
// sum of PSS over processes is the memory they take together, and a sum of VmRSS overstates it.
import { readFileSync } from 'node:fs';
import { processTree } from '../../../lib/proc.js';

export { processTree };

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

/** VmRSS of one process in MiB, or 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Proportional set size of one process in MiB (/proc/<pid>/smaps_rollup), or 0 when it is gone. */
export function pssMiB(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * User + system CPU time a process and its live descendants have used so far, in ms. The descendants
 * count because an extension's pid is its sandbox's outer process: the extension itself runs below it.
 */
export function cpuMs(pid: number): number {
  return processTree(pid).reduce((sum, each) => sum + ownCpuMs(each), 0);
}

function ownCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0; // ended meanwhile
  }
}
