// `roost plugins update [name] [--yes]`: one plugin, or every plugin that did not ship with roost.
import type { CommandHandler } from '../tree.js';
import { roostHome } from '../plugins/home.js';
import { readRegistry } from '../plugins/registry.js';
import { updatePlugin, type UpdateOutcome } from '../plugins/update.js';

export const handler: CommandHandler = async ({ args, options }, ctx) => {
  const home = roostHome();
  const names = args[0] !== undefined ? [args[0]] : (await readRegistry(home)).plugins.filter((p) => !p.linked).map((p) => p.name);
  const updated: UpdateOutcome[] = [];
  for (const name of names) updated.push(await updatePlugin(name, { home, yes: Boolean(options.yes), ctx }));
  const text = updated.length === 0
    ? 'No plugins to update (plugins that ship with roost are updated with it).'
    : updated.map((u) => `${u.name}: ${u.from === u.to ? `${u.to}, fetched again` : `${u.from} → ${u.to}`}`).join('\n');
  return { data: { updated }, text };
};
