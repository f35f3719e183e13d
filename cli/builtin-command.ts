// The built-in commands: argv parsed with cac against the command tree, and the chosen command's module
// imported and run. main.ts imports this module only when the command is not a plugin's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cac } from 'cac';
import { packageRoot } from '../lib/paths.js';
import { createContext } from './context.js';
import { printError, printResult, usageError } from './output.js';
import { GLOBAL_OPTIONS, type CommandSpec } from './tree.js';

export async function runBuiltinCommand(argv: string[], specs: CommandSpec[], json: boolean): Promise<number> {
  const cli = cac('roost');
  for (const [flags, description] of GLOBAL_OPTIONS) cli.option(flags, description);
  // Only the overview (`roost`, `roost --help`) reads the plugin registry, to list plugin commands.
  const pluginSection = isOverview(argv) ? await (await import('./command-help.js')).pluginHelpSection() : undefined;
  cli.help((sections) => cli.matchedCommand
    ? withEnvironment(sections, specs.find((s) => cli.matchedCommand!.name === s.name))
    : [...sections, ...(pluginSection ? [pluginSection] : [])]);
  cli.version((JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version);

  let chosen: { spec: CommandSpec; args: string[]; options: Record<string, unknown> } | undefined;
  for (const spec of specs) {
    const command = cli.command(spec.args ? `${spec.name} ${spec.args}` : spec.name, spec.description);
    for (const [flags, description, config] of spec.options ?? []) command.option(flags, description, config);
    command.action((...params: unknown[]) => {
      const options = params.pop() as Record<string, unknown>;
      chosen = { spec, args: params.flat().filter((p): p is string => typeof p === 'string'), options };
    });
  }

  try {
    const parsed = cli.parse(joinCommandWords(argv, specs), { run: false });
    if (parsed.options.help || parsed.options.version) return 0;
    if (!cli.matchedCommand) {
      if (parsed.args.length === 0) {
        cli.outputHelp();
        return 0;
      }
      const { explainUnmatched } = await import('./command-help.js');
      return printResult(await explainUnmatched(parsed.args.map(String), specs), json);
    }
    await cli.runMatchedCommand();
    if (!chosen) throw usageError('no command matched');
    const { spec, args, options } = chosen;
    const ctx = createContext({ json, nonInteractive: Boolean(options.nonInteractive) });
    const handler = await spec.load();
    const rest = Array.isArray(options['--']) ? (options['--'] as string[]) : [];
    return printResult(await handler({ args, options, rest }, ctx), json);
  } catch (err) {
    return printError(isCacError(err) ? usageError(err.message) : err, json);
  }
}

/** cac matches one word; multi-word commands ("lanes run") are joined into one token before parsing. */
function joinCommandWords(argv: string[], specs: CommandSpec[]): string[] {
  const words = argv.slice(2);
  const names = new Set(specs.map((s) => s.name));
  for (let n = 3; n >= 2; n--) {
    const candidate = words.slice(0, n).join(' ');
    if (words.length >= n && names.has(candidate)) return [...argv.slice(0, 2), candidate, ...words.slice(n)];
  }
  return argv;
}

/** `roost` alone or `roost --help`: no command word. */
function isOverview(argv: string[]): boolean {
  const words = argv.slice(2);
  return words.every((w) => w.startsWith('-')) && (words.length === 0 || words.includes('--help') || words.includes('-h'));
}

function isCacError(err: unknown): err is Error {
  return err instanceof Error && err.name === 'CACError';
}

/** A command's --help ends with the environment variables it reads (docs/configuration.md has them all). */
function withEnvironment(sections: Array<{ title?: string; body: string }>, spec: CommandSpec | undefined) {
  if (!spec?.environment?.length) return sections;
  const width = Math.max(...spec.environment.map(([name]) => name.length));
  const body = spec.environment.map(([name, description]) => `  ${name.padEnd(width)}  ${description}`).join('\n');
  return [...sections, { title: 'Environment', body: `${body}\n  (all of them: docs/configuration.md)` }];
}
