// `roost plugins remove <name> [--purge]`: uninstall a plugin (its stored values stay unless --purge).
import type { CommandHandler } from '../tree.js';
import { usageError } from '../output.js';
import { roostHome } from '../plugins/home.js';
import { removePlugin } from '../plugins/remove.js';

export const handler: CommandHandler = async ({ args, options }) => {
  const name = args[0];
  if (name === undefined) throw usageError('plugins remove needs the name of an installed plugin');
  const purged = Boolean(options.purge);
  const entry = await removePlugin(roostHome(), name, { purge: purged });
  return {
    data: { removed: { name: entry.name, version: entry.version, dir: entry.dir, linked: entry.linked }, purged },
    text: `Removed ${entry.name} ${entry.version}${purged ? ' and its stored values' : ''}`,
  };
};
