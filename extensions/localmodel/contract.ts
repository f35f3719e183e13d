// The localmodel extension's contract with its callers (schedules reads whether the local model runner
// is up). It imports nothing of localmodel's own code; localmodel types its status handler with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const LOCALMODEL_ROUTES = {
  status: 'GET /api/localmodel/status',
} as const;

/** Whether the local model runner (Ollama) answers, and what it runs. */
export type LocalModelStatus =
  | { available: true; host: string; version: string; running: number }
  | { available: false; host: string; error: string };

export class LocalModelClient {
  constructor(private readonly host: HostClient) {}

  status(as: CallAs): Promise<{ status: number; body: LocalModelStatus | null }> {
    return callRoute(this.host, LOCALMODEL_ROUTES.status, {}, as);
  }
}
