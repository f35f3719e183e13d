// `roost plugins list [--json]`: the installed plugins, their commands, capabilities, hooks and sandbox grants.
import type { PluginSandbox } from '../../kernel/host/manifest.js';
import { PROTOCOL } from '../../protocol/messages.js';
import type { CommandHandler } from '../tree.js';
import { roostHome } from '../plugins/home.js';
import { readRegistry } from '../plugins/registry.js';

export const handler: CommandHandler = async () => {
  const registry = await readRegistry(roostHome());
  const plugins = registry.plugins.map((p) => ({
    name: p.name,
    protocol: p.protocol ?? PROTOCOL,
    ...(p.author ? { author: p.author } : {}),
    ...(p.filesystemScope ? { filesystemScope: p.filesystemScope } : {}),
    ...(p.sandbox ? { sandbox: p.sandbox } : {}),
    version: p.version,
    description: p.description,
    source: p.source,
    linked: p.linked,
    dir: p.dir,
    capabilities: p.capabilities,
    commands: p.commands.map((c) => ({ name: c.name, description: c.description })),
    hooks: Object.keys(p.hooks),
    installedAt: p.installedAt,
  }));
  const text = plugins.length === 0
    ? 'No plugins installed (try roost plugins install --defaults).'
    : plugins.map((p) => [
        `${p.name} ${p.version}${p.linked ? ' (built in)' : ''}${p.description ? ` - ${p.description}` : ''}`,
        `  commands: ${p.commands.map((c) => c.name).join(', ') || 'none'}`,
        `  capabilities: ${p.capabilities.join(', ') || 'none'}${p.hooks.length ? `; hooks: ${p.hooks.join(', ')}` : ''}`,
        ...(sandboxGrants(p.sandbox).length > 0 ? [`  sandbox: ${sandboxGrants(p.sandbox).join(', ')}`] : []),
      ].join('\n')).join('\n');
  return { data: { plugins }, text };
};

/** `$VARIABLE` for each granted variable, then each granted socket. */
function sandboxGrants(sandbox: PluginSandbox | undefined): string[] {
  return sandbox ? [...sandbox.env, ...sandbox.envFiles].map((name) => `$${name}`).concat(sandbox.sockets) : [];
}
