// The hook through which plugin commands become lane steps: the plugin system provides
// `resolvePluginStep` in cli/plugins/steps.ts, loaded only when a step names neither a lane, a built-in
// task nor an inline command.

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

/** The plugin system's resolver. */
export async function loadPluginStepResolver(): Promise<PluginStepResolver | undefined> {
  return (await import('../plugins/steps.js')).resolvePluginStep;
}
