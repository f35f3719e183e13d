// Finding the sandbox's tools (bubblewrap and prlimit) and checking once that bwrap can make the
// namespaces it needs here: shared by the server's extension launcher and the CLI's plugin runner.
import { spawnSync } from 'node:child_process';
import { findExecutable } from '../../lib/bwrap.js';

export type SandboxTools = { bwrap: string; prlimit: string } | { missing: string };

/** A bwrap that cannot make namespaces here (a locked-down kernel) counts as missing. */
export function findSandboxTools(bwrapName: string): SandboxTools {
  if (process.platform !== 'linux') return { missing: `bubblewrap needs Linux, this is ${process.platform}` };
  const bwrap = findExecutable(bwrapName);
  const prlimit = findExecutable('prlimit');
  if (!bwrap) return { missing: `no bwrap executable at "${bwrapName}"` };
  if (!prlimit) return { missing: 'no prlimit executable (util-linux) on PATH' };
  const probe = spawnSync(bwrap, ['--unshare-user', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--proc', '/proc', '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) return { missing: `${bwrap} cannot create namespaces here: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}` };
  return { bwrap, prlimit };
}
