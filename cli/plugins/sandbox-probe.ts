// Whether bubblewrap works here, remembered between runs: the check starts bwrap once (a process spawn
// that would otherwise be paid by every plugin command). A working sandbox is remembered per boot and per
// bwrap binary ($ROOST_HOME/sandbox.json); a missing or failing one is checked again each run,
// so installing bubblewrap takes effect at once.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readOr } from '../../lib/proc.js';
import { findSandboxTools, type SandboxTools } from '../../kernel/host/sandbox-tools.js';
import { writeJsonAtomic } from './atomic.js';

interface Remembered {
  bootId: string;
  bwrapName: string;
  tools: { bwrap: string; prlimit: string };
  bwrapChanged: number | undefined;
}

export async function sandboxTools(home: string, bwrapName: string): Promise<SandboxTools> {
  const file = join(home, 'sandbox.json');
  const bootId = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), '');
  const remembered = readOr(() => JSON.parse(readFileSync(file, 'utf8')) as Remembered, undefined);
  if (bootId && remembered?.bootId === bootId && remembered.bwrapName === bwrapName && changedAt(remembered.tools.bwrap) === remembered.bwrapChanged) {
    return remembered.tools;
  }
  const tools = findSandboxTools(bwrapName);
  if (bootId && !('missing' in tools)) {
    await writeJsonAtomic(file, { bootId, bwrapName, tools, bwrapChanged: changedAt(tools.bwrap) } satisfies Remembered).catch(() => undefined); // a read-only home only costs the check
  }
  return tools;
}

function changedAt(file: string): number | undefined {
  return statSync(file, { throwIfNoEntry: false })?.mtimeMs;
}
