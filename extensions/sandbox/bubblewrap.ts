// Whether bubblewrap can make a session sandbox here, found once per process: the bwrap binary (the
// setting ROOST_EXT_SANDBOX_BWRAP, default "bwrap" on PATH), prlimit, and a trial run with the exact
// namespaces a sandbox uses — with a fresh /proc when bwrap may mount one (not when the server itself
// runs extensions inside bubblewrap: a nested pid namespace cannot mount a new procfs there).
import { spawn, spawnSync } from 'node:child_process';
import { findExecutable } from '../../lib/bwrap.js';
import { DEFAULT_POLICY, namespaceArgs, type SandboxGrant } from '../../lib/session-sandbox.js';

export type Bubblewrap = Pick<SandboxGrant, 'bwrap' | 'prlimit' | 'procfs'>;
export type Detection = Bubblewrap | { missing: string };

const PROBE_TIMEOUT_MS = 10_000;

export function detectBubblewrap(setting: string): Detection {
  if (process.platform !== 'linux') return { missing: `bubblewrap needs Linux, this is ${process.platform}` };
  const bwrap = findExecutable(setting);
  if (!bwrap) return { missing: `no bwrap executable at "${setting}": install the Debian package "bubblewrap" or point ROOST_EXT_SANDBOX_BWRAP at it` };
  const prlimit = findExecutable('prlimit');
  if (!prlimit) return { missing: 'no prlimit executable (util-linux) on PATH' };
  let failure = '';
  for (const procfs of [true, false]) {
    const probe = spawnSync(bwrap, probeArgs({ bwrap, prlimit, procfs }), { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    if (probe.status === 0) return { bwrap, prlimit, procfs };
    failure = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim();
  }
  return { missing: `${bwrap} cannot create the sandbox's namespaces here: ${failure}` };
}

/** One trial run of a sandbox's namespaces (network off, the stricter case); resolves with its duration. */
export function probe(tools: Bubblewrap): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(tools.bwrap, probeArgs(tools), { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`bwrap failed (${code}): ${stderr.trim()}`))));
  });
}

function probeArgs(tools: Bubblewrap): string[] {
  return ['--ro-bind', '/', '/', ...namespaceArgs({ procfs: tools.procfs, policy: DEFAULT_POLICY }), '--', 'true'];
}
