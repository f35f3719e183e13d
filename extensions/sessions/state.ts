// The running state of the sessions extension: what setup returns, handed to every handler after ctx.
import type { ChatBridge } from './chat.js';
import type { SessionManager } from './manager.js';

export interface Sessions {
  manager: SessionManager;
  chat: ChatBridge;
}
