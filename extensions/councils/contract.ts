// The councils extension's contract with its callers (schedules and workflows launch councils and wait
// for the launch; reputation reads a launch's votes; references are checked through its read route)
// and with the subscribers of its events. It imports nothing of councils' own code; councils types its
// handlers and its stage words with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const COUNCILS_ROUTES = {
  get: 'GET /api/councils/:id',
  launch: 'POST /api/councils/:id/launch',
  launchRecord: 'GET /api/council-launches/:id',
  abort: 'POST /api/council-launches/:id/abort',
  discussion: 'GET /api/council-launches/:id/discussion-messages',
} as const;

export const COUNCILS_EVENTS = {
  /** A launch concluded: {@link CouncilOutcome}. */
  outcome: 'councils.outcome',
} as const;

export interface CouncilOutcome {
  launchId: string;
  councilId: string;
  agreement: number;
  breakdown: unknown;
}

/** A launch's `stage`, in order; the last three end it. */
export const LAUNCH_STAGES = ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed', 'aborted', 'failed'] as const;
export type LaunchStage = (typeof LAUNCH_STAGES)[number];
export const LAUNCH_DONE: readonly LaunchStage[] = ['completed'];
export const LAUNCH_FAILED: readonly LaunchStage[] = ['failed', 'aborted'];

export interface LaunchRequest {
  prompt: string;
  /** A retry with the same key answers the launch the first made. */
  idempotencyKey?: string;
}

/** One message of a launch's discussion; reviews carry the member's vote. */
export interface DiscussionMessage {
  kind: string;
  agentId?: string;
  vote?: unknown;
  [field: string]: unknown;
}

export class CouncilsClient {
  constructor(private readonly host: HostClient) {}

  discussion(launchId: string, limit: number, as: CallAs): Promise<{ status: number; body: { messages?: DiscussionMessage[] } | null }> {
    return callRoute(this.host, COUNCILS_ROUTES.discussion, { params: { id: launchId }, query: { limit } }, as);
  }
}
