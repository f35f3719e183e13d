// chat_send over the WebSocket: a lightweight chat with an agent. Each (connection, agent) pair gets a
// session of its own (source "web"), so a chat has the tools, approvals, credits and history of any
// session; its stream is translated for that one client into chat_stream / chat_thinking /
// chat_tool_use messages (and approval_request, error), sent with wsSend.
import type { HostClient } from '../../sdk/host-client.js';
import type { SessionEvent } from './event-log.js';
import type { SessionManager } from './manager.js';
import type { SessionRuntime } from './runtime.js';
import { LIVE } from './store.js';

interface Chat {
  clientId: string;
  agentId: string;
}

export class ChatBridge {
  private readonly sessionOf = new Map<string, string>();
  private readonly chats = new Map<string, Chat>();

  constructor(private readonly manager: SessionManager, private readonly host: HostClient) {
    manager.forward = (rt, message) => this.forward(rt, message);
  }

  async send(client: { id: string; tenantId: string }, agentId: string, content: string): Promise<void> {
    const key = `${client.id}/${agentId}`;
    const known = this.sessionOf.get(key);
    let rt = known ? this.manager.live(client.tenantId, known) : undefined;
    if (!rt || !LIVE.includes(rt.row.status)) {
      const view = await this.manager.create(client.tenantId, { tenantId: client.tenantId }, { agentId, source: 'web', name: `chat with agent ${agentId}` });
      rt = this.manager.live(client.tenantId, view.id);
      if (!rt) {
        this.host.wsSend(client.id, { type: 'error', message: `the chat session could not start: ${view.statusReason ?? view.status}`, code: view.statusCode ?? 'INTERNAL', agentId });
        return;
      }
      this.sessionOf.set(key, view.id);
      this.chats.set(view.id, { clientId: client.id, agentId });
    }
    await this.manager.send(client.tenantId, rt.id, content);
  }

  private forward(rt: SessionRuntime, message: { type: string } & Record<string, unknown>): void {
    const chat = this.chats.get(rt.id);
    if (!chat) return;
    const send = (m: { type: string } & Record<string, unknown>) => this.host.wsSend(chat.clientId, { agentId: chat.agentId, sessionId: rt.id, ...m });
    if (message.type === 'approval_request') return send(message);
    if (message.type === 'session_status') {
      const status = String(message.status);
      if (status === 'paused' || status === 'error' || status === 'timeout') send({ type: 'error', message: `the chat is ${status}: ${String(message.reason ?? '')}`.trim(), code: message.code ?? status.toUpperCase() });
      if (!LIVE.includes(status as (typeof LIVE)[number])) this.forget(rt.id);
      return;
    }
    if (message.type !== 'session_event') return;
    const event = message.event as SessionEvent;
    switch (event.type) {
      case 'text_delta':
        return send({ type: 'chat_stream', chunk: String(event.text), done: false });
      case 'thinking_delta':
        return send({ type: 'chat_thinking', thinking: String(event.thinking) });
      case 'tool_use':
        return send({ type: 'chat_tool_use', phase: 'call', toolUseId: event.id, toolName: event.name, input: event.input });
      case 'tool_result':
        return send({ type: 'chat_tool_use', phase: 'result', toolUseId: event.id, toolName: event.name, output: event.output, isError: event.isError });
      case 'turn_end':
        if (event.done) send({ type: 'chat_stream', chunk: '', done: true });
        return;
      default:
        return;
    }
  }

  private forget(sessionId: string): void {
    const chat = this.chats.get(sessionId);
    if (!chat) return;
    this.chats.delete(sessionId);
    this.sessionOf.delete(`${chat.clientId}/${chat.agentId}`);
  }
}
