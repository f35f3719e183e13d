// What the sessions extension and its agent runner child say to each other over cli-v1 (NDJSON on the
// runner's stdin/stdout, correlated by protocol/peer.ts). The host sends `init` (config below), then
// `turn` requests; the runner answers each turn, sends `emit` notifications (stream events, in order),
// asks `confirm` before a tool use, asks `external_tool` to run a tool of an external MCP server, asks
// `sandbox` before a shell or file tool (the session's sandbox or null), and `log`s. `cancel` or the end of stdin makes it leave at once.
import type { TraceContext } from '../../../protocol/messages.js';
import type { ProviderConfig, StreamEvent, ToolSpec, Usage } from '../../../lib/providers/index.js';

export interface RunnerConfig {
  sessionId: string;
  provider: ProviderConfig;
  systemPrompt: string;
  /** The conversation so far in short, when this runner continues an earlier context. */
  summary: string | null;
  workingDir: string;
  /** A session without a project works in a folder of its own, which the runner creates. */
  createWorkingDir: boolean;
  /** Basenames no tool may ever write (package.json, schema.ts, .env …). */
  protectedFiles: string[];
  /** The project's env_vars, for run_command. */
  env: Record<string, string>;
  /** The server's MCP endpoint and a bearer token scoped to this agent and session. */
  /** `tools`: what `/mcp` lists, handed over so the runner connects only when a tool is called. */
  mcp: { url: string; token: string; tools?: ToolSpec[] } | null;
  /** Tools of the external MCP servers this agent may use (mcp__<server>__<tool>); run through the host. */
  externalTools: ToolSpec[];
  maxTokens: number;
  /** The only local tools offered (the session's skills name them); absent: all of them. */
  localTools?: string[];
  /** Ask the host (`sandbox`) for the session's sandbox before each shell and file tool. */
  sandboxLookup?: boolean;
}

export interface TurnRequest {
  /** A new user message, or null to continue after tool results (or after a context reset). */
  input: string | null;
  /** The trace the turn belongs to, while the server traces: the runner's model calls become its spans, sent back in `spans`. */
  trace?: TraceContext;
}

export interface TurnReply {
  usage: Usage;
  model: string;
  stopReason: string | null;
  /** True when the model finished its reply (no tool use asks for another round trip). */
  done: boolean;
  toolUses: number;
}

export interface ReadyInfo {
  tools: string[];
  /** Why the server's MCP tools are missing, when they are. */
  mcpError?: string;
}

export type ToolKind = 'read' | 'write' | 'shell' | 'mcp';

/** Asked before every tool use; the host decides (permission mode, operational mode, approvals). */
export interface ApprovalAsk {
  message: string;
  default: false;
  tool: { id: string; name: string; input: Record<string, unknown>; kind: ToolKind };
}

/** Asked of the host to run an external MCP server's tool (after its approval). */
export interface ExternalToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The result of an external tool, as an MCP tool result. */
export interface ExternalToolResult {
  content: unknown[];
  isError: boolean;
}

export interface ApprovalAnswer {
  allowed: boolean;
  reason?: string;
}

/** Events the runner emits, beyond the raw stream deltas. */
export type RunnerEvent =
  | StreamEvent
  | { type: 'assistant_message'; text: string; toolUses: Array<{ id: string; name: string; input: Record<string, unknown> }>; stopReason: string | null }
  | { type: 'tool_result'; id: string; name: string; output: string; isError: boolean };

export const LOCAL_TOOL_KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  list_dir: 'read',
  write_file: 'write',
  edit_file: 'write',
  run_command: 'shell',
};

export const kindOf = (name: string): ToolKind => LOCAL_TOOL_KINDS[name] ?? 'mcp';

/** The user turn a fresh context starts with when there is no new message to answer. */
export const CONTINUE_PROMPT = 'Continue the task from where the summary leaves off.';
