// `roost plugins install <org>/<repo> | <path> | <git url> [--yes]`, and the plugins that ship with roost:
// `roost plugins install --defaults` (deps, metrics, github) and `--community` (the community commands).
import { usageError } from '../output.js';
import { PROTOCOL } from '../../protocol/messages.js';
import type { CommandHandler } from '../tree.js';
import { COMMUNITY_PLUGINS, DEFAULT_PLUGINS, installBundled } from '../plugins/defaults.js';
import { roostHome } from '../plugins/home.js';
import { installPlugin } from '../plugins/install.js';
import type { RegistryEntry } from '../plugins/registry.js';

export const handler: CommandHandler = async ({ args, options }, ctx) => {
  const home = roostHome();
  if (options.defaults || options.community) {
    if (args.length > 0) throw usageError('plugins install takes either a source or --defaults/--community, not both');
    const names = [...(options.defaults ? DEFAULT_PLUGINS : []), ...(options.community ? COMMUNITY_PLUGINS : [])];
    const { installed, refreshed } = await installBundled(home, names, ctx.log);
    const all = [...installed, ...refreshed];
    return {
      data: { installed: installed.map(summary), refreshed: refreshed.map(summary) },
      text: all.map((e) => `${e.name} ${e.version}: ${e.commands.map((c) => c.name).join(', ')}`).join('\n'),
    };
  }
  const source = args[0];
  if (source === undefined) throw usageError('plugins install needs <org>/<repo>, a path or a git URL (or --defaults, --community)');
  const entry = await installPlugin(source, { home, yes: Boolean(options.yes), ctx });
  const commands = entry.commands.map((c) => c.name);
  return {
    data: { installed: [summary(entry)], refreshed: [] },
    text: `Installed ${entry.name} ${entry.version}${commands.length ? `; commands: ${commands.join(', ')}` : ''}`,
  };
};

function summary(entry: RegistryEntry) {
  return {
    name: entry.name,
    protocol: entry.protocol ?? PROTOCOL,
    ...(entry.author ? { author: entry.author } : {}),
    ...(entry.filesystemScope ? { filesystemScope: entry.filesystemScope } : {}),
    version: entry.version,
    source: entry.source,
    linked: entry.linked,
    dir: entry.dir,
    capabilities: entry.capabilities,
    commands: entry.commands.map((c) => c.name),
    hooks: Object.keys(entry.hooks),
  };
}
