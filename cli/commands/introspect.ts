// `roost introspect`: the whole command tree — built-in and plugin commands — from the same spec list
// bin.ts parses with. cac itself reads each spec's argument and option syntax.
import { cac } from 'cac';
import type { CommandHandler, CommandSpec } from '../tree.js';
import { allCommandSpecs, GLOBAL_OPTIONS } from '../tree.js';

type CacOption = ReturnType<typeof cac>['globalCommand']['options'][number];

export const handler: CommandHandler = async () => {
  const commands = (await allCommandSpecs()).map(describe);
  const cli = cac('roost');
  for (const [flags, description] of GLOBAL_OPTIONS) cli.option(flags, description);
  cli.help();
  cli.version('0');
  const globalOptions = cli.globalCommand.options.map(describeOption);
  const width = Math.max(...commands.map((c) => c.usage.length));
  const text = commands.map((c) => `${c.usage.padEnd(width)}  ${c.description}`).join('\n');
  return { data: { commands, globalOptions }, text };
};

function describe(spec: CommandSpec) {
  const command = cac('roost').command(spec.args ? `${spec.name} ${spec.args}` : spec.name, spec.description);
  for (const [flags, description, config] of spec.options ?? []) command.option(flags, description, config);
  return {
    name: spec.name,
    usage: command.rawName,
    description: spec.description,
    source: spec.source ?? 'builtin',
    args: command.args.map((a) => ({ name: a.value, required: a.required, variadic: a.variadic })),
    options: command.options.map(describeOption),
  };
}

function describeOption(option: CacOption) {
  const described = { flags: option.rawName, name: option.name, description: option.description, takesValue: !option.isBoolean };
  return option.config.default === undefined ? described : { ...described, default: option.config.default };
}
