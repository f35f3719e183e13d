// Where each plugin that ships inside roost lives: plugins/<folder>. A plugin is known by its short
// name (what `builtin:<name>` records in the registry, cli-plugin-<name> without the prefix); two
// folders are named for what they do rather than for their command, so no two homes read alike
// (metrics counts git churn, beside the server's Prometheus metrics; notify posts to a chat webhook,
// beside the server's notifications extension).
import { join } from 'node:path';
import { packageRoot } from '../../lib/paths.js';

const FOLDERS: Record<string, string> = { metrics: 'churn', notify: 'chat-webhook' };

/** The in-tree folder of the bundled plugin with this short name. */
export function bundledDir(name: string): string {
  return join(packageRoot, 'plugins', FOLDERS[name] ?? name);
}

/**
 * A linked default's registry entry with the folder this roost has it in: the entry was written by the
 * roost that installed it, whose copy may have kept the plugin elsewhere (extensions/<name> before the
 * bundled plugins had a home of their own).
 */
export function relinked<T extends { linked: boolean; source: string; dir: string }>(entry: T): T {
  if (!entry.linked || !entry.source.startsWith('builtin:')) return entry;
  const dir = bundledDir(entry.source.slice('builtin:'.length));
  return dir === entry.dir ? entry : { ...entry, dir };
}
