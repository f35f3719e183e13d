// Every tool the agent may call: the local file and shell tools (validated here), the server's MCP
// tools (validated by the server) and the external MCP servers' tools (validated by those servers).
// A tool failure is a result the model sees, never a crash.
import type { ValidateFunction } from 'ajv';
import { RoostError } from '../../../protocol/errors.js';
import { describeErrors, schemaValidator } from '../../../protocol/validate.js';
import type { ToolSpec } from '../../../lib/providers/index.js';
import type { SandboxGrant } from '../../../lib/session-sandbox.js';
import type { ExternalTools } from './external.js';
import { runFsTool } from './fs-tools.js';
import type { McpTools } from './mcp.js';
import { FS_TOOL_SPECS, toolSchemaFile } from './tool-schemas.js';
import { runFsToolSandboxed } from './sandboxed-fs.js';
import { SHELL_TOOL_SPEC, type Shell } from './shell.js';
import type { Workspace } from './workspace.js';

export interface ToolOutcome {
  text: string;
  isError: boolean;
}

/**
 * The session's sandbox, asked before every shell and file tool (an assignment or a release takes
 * effect at the next tool use); a failed lookup fails the tool rather than run it unsandboxed.
 */
export interface SandboxSource {
  current(): Promise<SandboxGrant | null>;
  protectedFiles: string[];
}

/** What the model reads back from one tool use is bounded; the rest is elided. */
const MAX_RESULT_CHARS = 100_000;

const LOCAL_SPECS = new Map([...FS_TOOL_SPECS, SHELL_TOOL_SPEC].map((spec) => [spec.name, spec]));

/** A local tool's input validator: precompiled at build (tool-schemas.ts), loaded when first needed. */
export function localValidator(name: string): ValidateFunction {
  return schemaValidator(toolSchemaFile(name));
}

export class Toolbox {
  constructor(
    private readonly ws: Workspace,
    private readonly shell: Shell,
    private readonly mcp: McpTools | null,
    private readonly external: ExternalTools | null = null,
    private readonly sandbox: SandboxSource | null = null,
    /** The local tools the session's skills allow; undefined: all. */
    private readonly localTools?: string[],
  ) {}

  get specs(): ToolSpec[] {
    const local = [...LOCAL_SPECS.values()].filter((s) => this.offers(s.name));
    const server = this.mcp?.specs.filter((s) => !LOCAL_SPECS.has(s.name)) ?? [];
    const external = this.external?.specs.filter((s) => !LOCAL_SPECS.has(s.name) && !this.mcp?.has(s.name)) ?? [];
    return [...local, ...server, ...external];
  }

  private offers(localTool: string): boolean {
    return this.localTools === undefined || this.localTools.includes(localTool);
  }

  async run(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome> {
    try {
      const outcome = await this.dispatch(name, input, signal);
      return outcome.text.length > MAX_RESULT_CHARS ? { ...outcome, text: `${outcome.text.slice(0, MAX_RESULT_CHARS)}\n… (result truncated)` } : outcome;
    } catch (err) {
      if (err instanceof RoostError && err.code !== 'INTERNAL') return { text: err.message, isError: true };
      return { text: `${name} failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }

  /**
   * A file write no approval could make possible (a protected file, a path outside the working
   * directory): refused before anyone is asked. Undefined when the tool use may go to approval.
   */
  async refusal(name: string, input: Record<string, unknown>): Promise<ToolOutcome | undefined> {
    if (name !== 'write_file' && name !== 'edit_file') return undefined;
    if (!localValidator(name)(input)) return undefined; // run() reports the malformed input
    try {
      await this.ws.resolveWritable(input.path);
      return undefined;
    } catch (err) {
      if (err instanceof RoostError && err.code !== 'INTERNAL') return { text: err.message, isError: true };
      return undefined;
    }
  }

  private async dispatch(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome> {
    if (LOCAL_SPECS.has(name)) {
      if (!this.offers(name)) return { text: `${name} is not among this session's tools (its skills name ${this.localTools!.join(', ')})`, isError: true };
      const validate = localValidator(name);
      if (!validate(input)) return { text: describeErrors(validate.errors ?? [], 'input'), isError: true };
      const sandbox = (await this.sandbox?.current()) ?? null;
      if (name === 'run_command') return this.shell.run(input.command as string, input.timeout_seconds as number | undefined, sandbox);
      if (sandbox) return runFsToolSandboxed(sandbox, this.ws, this.sandbox!.protectedFiles, name, input);
      return { text: await runFsTool(this.ws, name, input), isError: false };
    }
    if (this.mcp?.has(name)) return this.mcp.call(name, input, signal);
    if (this.external?.has(name)) return this.external.call(name, input);
    return { text: `there is no tool named "${name}"`, isError: true };
  }
}
