// Plugin commands as lane steps (the resolver cli/lanes/plugin-steps.ts loads): a step string names a
// plugin command and its arguments ("metrics --churn --limit 5"). The plugin runs without a terminal
// (questions get their default or an error), its output goes to the lane, and the lane's Ctrl-C
// cancels it like a person's would.
import { RoostError } from '../../protocol/errors.js';
import type { PluginStepResolver } from '../lanes/plugin-steps.js';
import { matchPluginCommand } from './commands.js';
import { roostHome } from './home.js';
import { readRegistry } from './registry.js';
import { runPlugin } from './run.js';

export const resolvePluginStep: PluginStepResolver = async (name) => {
  const home = roostHome();
  const match = matchPluginCommand(await readRegistry(home), splitWords(name));
  if (!match) return undefined;
  const { entry, command, args } = match;
  return {
    describe: `plugin ${entry.name}: ${[command.name, ...args].join(' ')}`,
    run: async ({ cwd, env, write, signal }) => {
      const outcome = await runPlugin(entry, command.binary, {
        home,
        cwd,
        args,
        command: command.name,
        env,
        signal,
        ask: async (question) => {
          if (question.default !== undefined) return question.default;
          throw new RoostError('USAGE', `${question.message}: a lane step cannot ask questions`);
        },
        output: write,
        log: (line) => write(`${line}\n`),
      });
      return outcome.code;
    },
  };
};

/** Words of a step string; single and double quotes group words ("notify 'build done'"). */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}
