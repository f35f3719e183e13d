// The pure parts of a bubblewrap command line shared by the kernel's extension sandbox
// (kernel/host/sandbox.ts) and the sessions runner's per-session sandbox (extensions/sandbox): the
// read-only runtime a program needs, a clean environment, and finding an executable on PATH.
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** The runtime: shared libraries and programs, and the few /etc files a program needs to run and resolve names. */
export const RUNTIME_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
export const RUNTIME_ETC = [
  '/etc/ssl', '/etc/ca-certificates', '/etc/pki', '/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf',
  '/etc/gai.conf', '/etc/passwd', '/etc/group', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime', '/etc/alternatives',
];

/** bwrap mounts of the read-only runtime: RUNTIME_DIRS, the folder of this node binary, RUNTIME_ETC. */
export function runtimeMounts(): string[] {
  const args: string[] = [];
  for (const dir of RUNTIME_DIRS) args.push(...runtimePath(dir));
  const nodeDir = dirname(process.execPath);
  if (!RUNTIME_DIRS.some((dir) => within(dir, nodeDir))) args.push('--ro-bind', nodeDir, nodeDir);
  for (const file of RUNTIME_ETC) args.push('--ro-bind-try', file, file);
  return args;
}

/** Merged-/usr systems make /bin, /lib… symlinks into /usr: they stay symlinks in the sandbox. */
export function runtimePath(path: string): string[] {
  if (!existsSync(path)) return [];
  const real = realpathSync(path);
  if (real === path) return ['--ro-bind', path, path];
  return ['--symlink', relative(dirname(path), real), path];
}

/** bwrap arguments giving the sandboxed process exactly this environment. */
export function environmentArgs(env: Record<string, string | undefined>): string[] {
  const args = ['--clearenv'];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) args.push('--setenv', name, value);
  return args;
}

export function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** The real paths of those that exist. */
export function existing(paths: string[]): string[] {
  return paths.filter((path) => existsSync(path)).map((path) => realpathSync(path));
}

/** An executable by path, or by name on PATH. */
export function findExecutable(name: string): string | undefined {
  const candidates = isAbsolute(name) || name.includes('/') ? [name] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
