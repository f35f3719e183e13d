// What of the server's environment reaches an extension: its settings at init, ROOST_EXT_<ITS NAME>_*
// without the prefix, plus the variables its manifest's [settings] names (documented without the
// prefix, such as a node's URL a chain client reads). A prefix of its own and a manifest that may not name the
// kernel's variables (kernel/host/manifest.ts), so no extension reaches another's or the kernel's.
import type { Manifest } from './manifest.js';

export function extensionSettings(manifest: Pick<Manifest, 'name' | 'server' | 'renamedFrom'>, env: NodeJS.ProcessEnv): Record<string, string> {
  // A renamed extension still reads an operator's variables under its former names; its own name wins.
  const own = Object.assign({}, ...[...(manifest.renamedFrom ?? []), manifest.name].map((name) => prefixed(name, env))) as Record<string, string>;
  // The prefixed variables win over the named ones.
  const named = Object.entries(manifest.server?.namedSettings ?? {}).filter(([, variable]) => env[variable] !== undefined && env[variable] !== '');
  return { ...Object.fromEntries(named.map(([setting, variable]) => [setting, env[variable]!])), ...own };
}

function prefixed(name: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const prefix = `ROOST_EXT_${name.toUpperCase().replace(/-/g, '_')}_`;
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith(prefix) && entry[1] !== undefined).map(([key, value]) => [key.slice(prefix.length), value]));
}
