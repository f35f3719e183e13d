// Commands for a session another instance runs (its runner, approvals and queue live in that
// process): sent on the bus as sessions.command, carried out by the instance holding the session,
// answered with sessions.command_result. Both topics are `broadcast` in plugin.toml.
import { randomUUID } from 'node:crypto';
import { RoostError, toRoostError, type ErrorCode } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';

export const COMMAND_TOPIC = 'sessions.command';
export const RESULT_TOPIC = 'sessions.command_result';
/** How long the instance asking waits for the holder's answer. */
const ANSWER_MS = 10_000;
/**
 * An approval answer names no session, so it goes to every instance and only the one asking answers:
 * silence soon means nobody is asking (a holder answers within milliseconds).
 */
const APPROVAL_ANSWER_MS = 2_000;

export interface Command {
  id: string;
  kind: 'stop' | 'send' | 'extend_timeout' | 'approval';
  sessionId: string;
  args: Record<string, unknown>;
}

interface Result {
  id: string;
  value?: unknown;
  error?: { code: ErrorCode; message: string };
}

/** Carries out a command if this instance holds what it names; undefined: not ours, say nothing. */
export type Executor = (tenantId: string, command: Command) => Promise<{ value: unknown } | undefined>;

export class RemoteCommands {
  private readonly waiting = new Map<string, { resolve(value: unknown): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  execute: Executor = async () => undefined;

  constructor(private readonly host: HostClient) {}

  /** Sends the command and waits for the holder's answer; `unanswered` is thrown when nobody answers. */
  send(tenantId: string, command: Omit<Command, 'id'>, unanswered: () => RoostError): Promise<unknown> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(unanswered());
      }, command.kind === 'approval' ? APPROVAL_ANSWER_MS : ANSWER_MS);
      this.waiting.set(id, { resolve, reject, timer });
      this.host.emit(COMMAND_TOPIC, { ...command, id }, tenantId);
    });
  }

  /** A bus event of either topic, from another instance. */
  async receive(topic: string, payload: unknown, tenantId: string | null): Promise<void> {
    if (topic === RESULT_TOPIC) return this.settle(payload as Result);
    if (topic !== COMMAND_TOPIC || tenantId === null) return;
    const command = payload as Command;
    let result: Result;
    try {
      const done = await this.execute(tenantId, command);
      if (!done) return;
      result = { id: command.id, value: done.value };
    } catch (err) {
      const error = toRoostError(err);
      result = { id: command.id, error: { code: error.code, message: error.message } };
    }
    this.host.emit(RESULT_TOPIC, result, tenantId);
  }

  private settle(result: Result): void {
    const waiter = this.waiting.get(result.id);
    if (!waiter) return;
    this.waiting.delete(result.id);
    clearTimeout(waiter.timer);
    if (result.error) waiter.reject(new RoostError(result.error.code, result.error.message));
    else waiter.resolve(result.value);
  }
}
