// The hook through which plugin commands become lane steps. The plugin system provides
// `resolvePluginStep` in cli/plugins/steps.ts; lanes work without it (then only lanes, built-in tasks
// and inline commands resolve).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface StepIo {
  cwd: string;
  env: Record<string, string>;
  /** Output of the step; shown to the user (prefixed when the step runs in parallel) and kept as its tail. */
  write(text: string): void;
  /** Aborted when the lane is interrupted: stop the plugin. */
  signal: AbortSignal;
}

export interface ExternalStep {
  /** What a dry run shows, e.g. "plugin cli-plugin-deps: deps". */
  describe: string;
  /** Runs the step; resolves to its exit code. */
  run(io: StepIo): Promise<number>;
}

/** Resolves a step name that is neither a lane nor a built-in task; undefined when no plugin offers it. */
export type PluginStepResolver = (name: string, project: { root: string }) => Promise<ExternalStep | undefined>;

const PROVIDER = new URL('../plugins/steps.js', import.meta.url);

/** The installed plugin system's resolver, when there is one. */
export async function loadPluginStepResolver(): Promise<PluginStepResolver | undefined> {
  if (!existsSync(fileURLToPath(PROVIDER))) return undefined;
  const module = (await import(PROVIDER.href)) as { resolvePluginStep?: PluginStepResolver };
  return module.resolvePluginStep;
}
