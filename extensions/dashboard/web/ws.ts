// One WebSocket to the server's /ws for the whole app. A local owner connects as it is; with an API key
// the app first asks POST /api/ws/ticket for a one-time ticket, so the key never goes into a URL. It
// reconnects with a growing delay and subscribes again to what its listeners asked for.
import { api, apiKey } from './api.js';

export type ServerMessage = { type: string; [field: string]: any };
type Listener = (message: ServerMessage) => void;

class Socket {
  private socket: WebSocket | null = null;
  private readonly listeners = new Set<Listener>();
  /** Subscription messages by key ("sessionId:…"), sent again after every reconnect. */
  private readonly subscriptions = new Map<string, { message: ServerMessage; count: number }>();
  private retryMs = 500;
  private closed = true;
  state: 'connecting' | 'open' | 'closed' = 'closed';
  private readonly stateListeners = new Set<() => void>();

  start(): void {
    if (!this.closed) return;
    this.closed = false;
    void this.connect();
  }

  stop(): void {
    this.closed = true;
    this.socket?.close();
    this.socket = null;
    this.setState('closed');
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onState(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  send(message: ServerMessage): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Subscribes (`{type:"subscribe", sessionId}` or `launchId`…) while the returned function is not called. */
  subscribe(field: string, id: string, since?: number): () => void {
    const key = `${field}:${id}`;
    const entry = this.subscriptions.get(key);
    const message: ServerMessage = { type: 'subscribe', [field]: id, ...(since !== undefined ? { since } : {}) };
    if (entry) entry.count++;
    else {
      this.subscriptions.set(key, { message, count: 1 });
      this.send(message);
    }
    return () => {
      const current = this.subscriptions.get(key);
      if (!current || --current.count > 0) return;
      this.subscriptions.delete(key);
      this.send({ type: 'unsubscribe', [field]: id });
    };
  }

  private setState(state: Socket['state']): void {
    this.state = state;
    for (const listener of this.stateListeners) listener();
  }

  private async connect(): Promise<void> {
    this.setState('connecting');
    let url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    try {
      if (apiKey()) url += `?ticket=${encodeURIComponent((await api<{ ticket: string }>('POST', '/api/ws/ticket', {})).ticket)}`;
    } catch {
      return this.retry();
    }
    if (this.closed) return;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = 500;
      this.setState('open');
      for (const { message } of this.subscriptions.values()) socket.send(JSON.stringify(message));
    };
    socket.onmessage = (event) => {
      let message: ServerMessage;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      for (const listener of this.listeners) listener(message);
    };
    socket.onclose = () => {
      if (this.socket === socket) this.retry();
    };
  }

  private retry(): void {
    this.socket = null;
    if (this.closed) return;
    this.setState('connecting');
    setTimeout(() => void this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 15_000);
  }
}

export const socket = new Socket();
