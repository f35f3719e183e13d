// What a plugin must satisfy before it is installed: its name, command names that clash with nothing,
// and executables that exist inside its folder and can be started.
import { accessSync, constants, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Manifest } from '../../kernel/host/manifest.js';
import { RoostError } from '../../protocol/errors.js';
import { runnableEntry } from '../../lib/paths.js';
import { builtinCommands } from '../tree.js';
import type { Registry } from './registry.js';

/** Top-level words roost keeps for itself even before their command modules exist. */
const RESERVED_WORDS = ['run', 'lanes', 'review', 'work', 'plugins', 'introspect', 'spec', 'ai', 'serve', 'help'];

/** Each top-level word belongs to roost or to exactly one plugin. */
export function checkCommandNames(manifest: Manifest, registry: Registry): void {
  const builtin = new Set([...RESERVED_WORDS, ...builtinCommands.map((c) => c.name.split(' ')[0]!)]);
  const seen = new Set<string>();
  for (const command of manifest.commands) {
    const word = command.name.split(' ')[0]!;
    if (seen.has(command.name)) throw new RoostError('CONFLICT', `${manifest.name} declares the command "${command.name}" twice`);
    seen.add(command.name);
    if (builtin.has(word)) throw new RoostError('CONFLICT', `command "${command.name}" of ${manifest.name} clashes with roost's built-in "${word}"`);
    const owner = registry.plugins.find((p) => p.name !== manifest.name && p.commands.some((c) => c.name.split(' ')[0] === word));
    if (owner) throw new RoostError('CONFLICT', `command "${command.name}" of ${manifest.name} clashes with "${word}" of ${owner.name}`);
  }
}

/** Every command binary and hook must be a file inside the plugin folder that roost can start. */
export function checkExecutables(manifest: Manifest): void {
  const entries = [
    ...manifest.commands.map((c) => ({ what: `command "${c.name}"`, path: c.binary })),
    ...Object.entries(manifest.hooks).map(([kind, path]) => ({ what: `hook ${kind}`, path: path! })),
  ];
  for (const { what, path } of entries) {
    const absolute = resolve(manifest.dir, path);
    if (relative(manifest.dir, absolute).startsWith('..')) {
      throw new RoostError('VALIDATION_ERROR', `${what}: ${path} points outside the plugin folder`);
    }
    const file = runnableEntry(join(manifest.dir, path));
    if (file.endsWith('.ts')) {
      throw new RoostError('VALIDATION_ERROR', `${what}: ${path} is TypeScript; compile it in the [build] step and name the .js file`);
    }
    if (!existsSync(file)) throw new RoostError('VALIDATION_ERROR', `${what}: ${path} does not exist (after the build step)`);
    if (!/\.(c|m)?js$/.test(file) && !isExecutable(file)) {
      throw new RoostError('VALIDATION_ERROR', `${what}: ${path} is not executable (chmod +x it and give it a #! line)`);
    }
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The approval text: what the plugin may do and when it runs by itself. */
export function describeRequest(manifest: Manifest, source: string): string {
  const granted = Object.entries(manifest.capabilities).filter(([, on]) => on).map(([name]) => name);
  const hooks = Object.entries(manifest.hooks).map(([kind, path]) => `${kind} (${path})`);
  return [
    `${manifest.name} ${manifest.version} from ${source}${manifest.author ? ` by ${manifest.author}` : ''}`,
    manifest.description && `  ${manifest.description}`,
    `  protocol: ${manifest.protocol === 'plain' ? 'none (plain: arguments in argv, its own terminal output)' : manifest.protocol}`,
    `  capabilities: ${granted.length ? granted.map((c) => (c === 'filesystem' ? `filesystem (${manifest.filesystemScope ?? 'project'})` : c)).join(', ') : 'none'}`,
    `  commands: ${manifest.commands.length ? manifest.commands.map((c) => c.name).join(', ') : 'none'}`,
    `  hooks: ${hooks.length ? hooks.join(', ') : 'none'}`,
    ...describeSandbox(manifest),
    manifest.build && `  build: ${manifest.build.command}`,
  ].filter(Boolean).join('\n');
}

/** The [sandbox] grants, each on a line of its own: what of the machine beyond the project it sees. */
function describeSandbox(manifest: Manifest): string[] {
  const { env = [], envFiles = [], sockets = [] } = manifest.sandbox ?? {};
  return [
    env.length > 0 && `  environment variables: ${env.join(', ')}`,
    envFiles.length > 0 && `  files named by the variables: ${envFiles.join(', ')} (read-only)`,
    sockets.length > 0 && `  unix sockets: ${sockets.join(', ')}`,
  ].filter((line): line is string => typeof line === 'string');
}
