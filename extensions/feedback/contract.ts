// The feedback extension's contract with its callers: sessions put an agent's outcome context in its
// system prompt when the agent opted in (PUT /api/agents/:id/feedback-settings). It imports nothing of
// feedback's own code; feedback types its handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const FEEDBACK_ROUTES = {
  /** Internal: `{optedIn, text}`; text is '' unless the agent opted in and something happened lately. */
  promptContext: 'GET /api/internal/feedback/agents/:id/prompt-context',
} as const;

export interface PromptContext {
  optedIn: boolean;
  /** What a prompt carries: the tenant's recent outcomes in a few words (GET /api/feedback/context). */
  text: string;
}

type Failure = { code?: string; error?: string };

export class FeedbackClient {
  constructor(private readonly host: HostClient) {}

  promptContext(agentId: string, as: CallAs): Promise<{ status: number; body: (Partial<PromptContext> & Failure) | null }> {
    return callRoute(this.host, FEEDBACK_ROUTES.promptContext, { params: { id: agentId } }, as);
  }
}
