// The environment of a CLI plugin, an allow-list: what any program needs to run (below), what the
// protocol documents (ROOST_PLUGIN, ROOST_PLUGIN_DIR, FLEDGE_PLUGIN_DIR, ROOST_HOOK for hooks), and the
// variables its manifest's [sandbox] names that the person granted at install. Nothing else of roost's
// environment reaches it: no ANTHROPIC_API_KEY, no ROOST_API_KEY, no SSH_AUTH_SOCK, no DATABASE_URL.
import { PROTOCOL } from '../../protocol/messages.js';
import type { RegistryEntry } from './registry.js';

/** What a program needs to find its tools, speak the person's language and draw on their terminal. */
const BASICS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR'];
/** Where toolchains live (cli/plugins/toolchains.ts shows those folders, read-only). */
const TOOLCHAIN_VARIABLES = ['CARGO_HOME', 'RUSTUP_HOME', 'GOPATH', 'GOMODCACHE', 'GOROOT', 'NVM_DIR', 'PYENV_ROOT'];

export function pluginEnv(entry: RegistryEntry, host: NodeJS.ProcessEnv, extra: Record<string, string> = {}): Record<string, string> {
  const granted = new Set([...BASICS, ...TOOLCHAIN_VARIABLES, ...(entry.sandbox?.env ?? []), ...(entry.sandbox?.envFiles ?? [])]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && (granted.has(name) || name.startsWith('LC_'))) env[name] = value;
  }
  const protocol = entry.protocol ?? PROTOCOL;
  return {
    ...env,
    ROOST_PLUGIN: entry.name,
    ROOST_PLUGIN_DIR: entry.dir,
    // fledge plugins (fledge-v1 or plain) find their folder under fledge's name.
    ...(protocol !== PROTOCOL ? { FLEDGE_PLUGIN_DIR: entry.dir } : {}),
    ...extra,
  };
}
