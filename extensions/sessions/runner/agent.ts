// The agent loop of one context: the conversation in memory, one model round trip per turn, then the
// turn's tool uses — each asked of the host first (approval), then run, its result fed back next turn.
import type { Block, ChatMessage, ModelDriver } from '../../../lib/providers/index.js';
import { CONTINUE_PROMPT, kindOf, type ApprovalAnswer, type ApprovalAsk, type RunnerEvent, type TurnReply } from './protocol.js';
import type { Toolbox } from './toolbox.js';

export interface HostLink {
  emit(event: RunnerEvent): void;
  approve(ask: ApprovalAsk): Promise<ApprovalAnswer>;
}

export interface LoopConfig {
  systemPrompt: string;
  summary: string | null;
  maxTokens: number;
}

/** Tool output kept in the stored stream event; the model itself gets more (see Toolbox). */
const EVENT_OUTPUT_CHARS = 16 * 1024;

type ToolUse = Extract<Block, { type: 'tool_use' }>;

export class AgentLoop {
  private readonly messages: ChatMessage[] = [];
  private readonly system: string;
  private active: AbortController | undefined;

  constructor(
    private readonly driver: ModelDriver,
    private readonly toolbox: Toolbox,
    private readonly host: HostLink,
    private readonly config: LoopConfig,
  ) {
    const summary = config.summary ? `\n\n## The conversation so far\n${config.summary}` : '';
    this.system = `${config.systemPrompt || 'You are a helpful software agent.'}${summary}`;
  }

  /** Aborts the model call or tool in flight (the runner is leaving). */
  abort(): void {
    this.active?.abort();
  }

  async turn(input: string | null): Promise<TurnReply> {
    const controller = new AbortController();
    this.active = controller;
    const before = [...this.messages];
    const last = this.messages.at(-1);
    const text = input ?? (last?.role === 'user' ? null : CONTINUE_PROMPT);
    if (text !== null) {
      // Roles alternate: a message that arrives after tool results joins that user turn.
      if (last?.role === 'user') this.messages[this.messages.length - 1] = { role: 'user', content: [...last.content, { type: 'text', text }] };
      else this.messages.push({ role: 'user', content: [{ type: 'text', text }] });
    }
    let reply;
    try {
      reply = await this.driver.send(
        { system: this.system, messages: this.messages, tools: this.toolbox.specs, maxTokens: this.config.maxTokens, signal: controller.signal },
        (event) => this.host.emit(event),
      );
    } catch (err) {
      this.messages.splice(0, this.messages.length, ...before); // the turn did not happen
      throw err;
    }
    // An empty reply (a model stopped before saying anything) is not kept: the API refuses empty turns.
    if (reply.content.length > 0) this.messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((b): b is ToolUse => b.type === 'tool_use');
    const said = reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    this.host.emit({ type: 'assistant_message', text: said, toolUses: uses.map(({ id, name, input: i }) => ({ id, name, input: i })), stopReason: reply.stopReason });
    if (uses.length > 0) {
      const results: Block[] = [];
      for (const use of uses) results.push(await this.useTool(use, controller.signal));
      this.messages.push({ role: 'user', content: results });
    }
    return { usage: reply.usage, model: reply.model, stopReason: reply.stopReason, done: uses.length === 0, toolUses: uses.length };
  }

  private async useTool(use: ToolUse, signal: AbortSignal): Promise<Block> {
    const outcome = (await this.toolbox.refusal(use.name, use.input)) ?? (await this.approvedRun(use, signal));
    const shown = outcome.text.length > EVENT_OUTPUT_CHARS ? `${outcome.text.slice(0, EVENT_OUTPUT_CHARS)}\n… (truncated)` : outcome.text;
    this.host.emit({ type: 'tool_result', id: use.id, name: use.name, output: shown, isError: outcome.isError });
    return { type: 'tool_result', toolUseId: use.id, name: use.name, content: outcome.text, isError: outcome.isError };
  }

  private async approvedRun(use: ToolUse, signal: AbortSignal) {
    const answer = await this.host.approve({
      message: `Allow ${use.name} ${JSON.stringify(use.input).slice(0, 200)}?`,
      default: false,
      tool: { id: use.id, name: use.name, input: use.input, kind: kindOf(use.name) },
    });
    return answer.allowed
      ? this.toolbox.run(use.name, use.input, signal)
      : { text: `The tool use was denied: ${answer.reason ?? 'not approved'}.`, isError: true };
  }
}
