// The toolchains a CLI plugin may run inside its sandbox, read-only: the folders on PATH (except the
// home folder itself and system places with sockets or other users' files), node's own folder, and
// where the common toolchains keep their binaries and sources under the home folder. Never a dotfile
// or a folder that holds credentials: cargo's credentials sit next to bin/ and registry/, not in them.
import { dirname, isAbsolute, join } from 'node:path';
import { existing, RUNTIME_DIRS, within } from '../../lib/bwrap.js';

/** Under the home folder, when their variable does not say where (TOOLCHAIN_VARIABLES in plugin-env.ts). */
const HOME_TOOLCHAINS: Array<{ variable?: string; dir: string; parts?: string[] }> = [
  { variable: 'CARGO_HOME', dir: '.cargo', parts: ['bin', 'registry', 'git'] },
  { variable: 'RUSTUP_HOME', dir: '.rustup' },
  { variable: 'GOPATH', dir: 'go' },
  { variable: 'NVM_DIR', dir: '.nvm' },
  { dir: '.local/bin' },
  { dir: '.volta' },
  { dir: '.bun/bin' },
  { dir: '.deno/bin' },
  { variable: 'PYENV_ROOT', dir: '.pyenv' },
  { dir: '.rbenv' },
];

/** System places with sockets and devices: never shown, nor anything inside them. */
const SYSTEM = ['/run', '/var/run', '/proc', '/sys', '/dev'];
/** Shared scratch folders (other programs' sockets): never shown whole; a folder inside them may be. */
const SCRATCH = ['/tmp', '/var/tmp'];

/** Real paths of the existing toolchain folders, to be bound read-only. */
export function toolchainDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  const wanted: string[] = [dirname(process.execPath), '/nix/store'];
  for (const { variable, dir, parts } of HOME_TOOLCHAINS) {
    const base = (variable && env[variable]) || join(home, dir);
    if (isAbsolute(base)) wanted.push(...(parts ? parts.map((part) => join(base, part)) : [base]));
  }
  for (const go of [env.GOROOT, env.GOMODCACHE]) if (go && isAbsolute(go)) wanted.push(go);
  wanted.push(...(env.PATH ?? '').split(':').filter((dir) => isAbsolute(dir)));
  const dirs = existing(wanted).filter((dir) => !RUNTIME_DIRS.some((system) => within(system, dir)) && !shadowsPrivate(dir, home));
  return [...new Set(dirs)];
}

/** The home folder or one of its parents (the root too), a system place, or a whole scratch folder. */
export function shadowsPrivate(dir: string, home: string): boolean {
  return within(dir, home) || SYSTEM.some((place) => within(place, dir) || within(dir, place)) || SCRATCH.some((place) => within(dir, place));
}
