// `roost ai status`: the active provider and model, and which flag, variable or file chose each value.
import { AiConfig, type Sourced } from '../ai/resolve.js';
import type { CliContext } from '../context.js';
import { EXIT, type CommandResult } from '../output.js';
import type { CommandInput } from '../tree.js';

const CHECK_TIMEOUT_MS = 10_000;

export async function handler(input: CommandInput, ctx: CliContext): Promise<CommandResult> {
  const { options } = input;
  const ai = await AiConfig.load(ctx.cwd, process.env, {
    provider: optionalString(options.provider),
    model: optionalString(options.model),
  });
  const provider = ai.provider.value;
  const settings = ai.settingsFor(provider);
  const problems: string[] = [];
  if (settings.apiKey && !settings.apiKey.present) {
    problems.push(`${settings.apiKey.variable} is not set: export it, or use a local model with ROOST_AI_PROVIDER=ollama`);
  }

  const data: Record<string, unknown> = {
    provider: ai.provider,
    model: ai.model,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    configFiles: ai.configFiles.map(({ scope, path, exists }) => ({ scope, path, exists })),
    ready: problems.length === 0,
    problems,
  };

  let exitCode: number = EXIT.OK;
  if (options.check && problems.length === 0) {
    const check = await ai.createClient(provider, ai.model.value).checkModel(AbortSignal.timeout(CHECK_TIMEOUT_MS));
    data.check = check;
    if (!check.reachable || check.modelAvailable === false) {
      problems.push(check.detail);
      data.ready = false;
      exitCode = EXIT.FAILURE;
    }
  } else if (options.check) {
    exitCode = EXIT.FAILURE;
  }
  return { data, text: describe(data), exitCode };
}

function optionalString(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

function describe(data: Record<string, unknown>): string {
  const row = (label: string, v: Sourced<string>) => `${label.padEnd(12)}${v.value}  (${v.from})`;
  const lines = [
    row('provider', data.provider as Sourced<string>),
    row('model', data.model as Sourced<string>),
    row('address', data.baseUrl as Sourced<string>),
  ];
  const apiKey = data.apiKey as { variable: string; present: boolean } | null;
  if (apiKey) lines.push(`${'API key'.padEnd(12)}${apiKey.variable} ${apiKey.present ? 'is set' : 'is NOT set'}`);
  for (const file of data.configFiles as Array<{ scope: string; path: string; exists: boolean }>) {
    lines.push(`${`${file.scope} cfg`.padEnd(12)}${file.path}${file.exists ? '' : ' (absent)'}`);
  }
  const check = data.check as { detail: string } | undefined;
  if (check) lines.push(`${'check'.padEnd(12)}${check.detail}`);
  for (const problem of data.problems as string[]) lines.push(`${'problem'.padEnd(12)}${problem}`);
  return lines.join('\n');
}
