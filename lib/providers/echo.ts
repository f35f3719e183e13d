// The built-in echo provider: it answers every turn with the text of the last user message, spends no
// tokens and reaches no network. It is for the server's self-test (an end-to-end session round trip that
// needs no model) and for anyone who chooses it explicitly for an agent (provider "echo"); it is never a
// default and never listed among the model providers a person configures.
import { aborted } from './errors.js';
import type { Block, ChatMessage, ModelCheck, ModelDriver, ModelReply, ModelRequest, ProviderConfig, StreamEvent, TextMessage } from './types.js';

export const ECHO_PROVIDER = 'echo';
export const ECHO_MODEL = 'echo';

export class EchoDriver implements ModelDriver {
  readonly provider = ECHO_PROVIDER;
  readonly model: string;

  constructor(config: Pick<ProviderConfig, 'model'>) {
    this.model = config.model;
  }

  async send(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelReply> {
    if (request.signal?.aborted) throw aborted(ECHO_PROVIDER, request.signal);
    const text = lastUserText(request.messages);
    if (text !== '') onEvent({ type: 'text_delta', text });
    const content: Block[] = text === '' ? [] : [{ type: 'text', text }];
    // Usage as a model would count it, roughly (4 characters a token), so the cost path is exercised.
    const inputChars = request.system.length + request.messages.reduce((sum, m) => sum + JSON.stringify(m.content).length, 0);
    return { content, usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(text.length / 4) }, stopReason: 'end_turn', model: this.model };
  }

  async checkModel(): Promise<ModelCheck> {
    return { reachable: true, modelAvailable: true, detail: 'the built-in echo provider answers with the prompt' };
  }
}

/** The text of the last user turn (tool results included, so a turn after a tool use answers too). */
function lastUserText(messages: Array<ChatMessage | TextMessage>): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : '')).filter((t) => t !== '').join('\n');
}
