// The sandbox extension's contract with its caller, sessions: the sandbox a session's tools must run
// in. It imports nothing of sandbox's own code; sandbox types its handler with it. The grant's shape
// (SandboxGrant) lives with the bwrap command built from it, in lib/session-sandbox.ts.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';
import type { SandboxGrant } from '../../lib/session-sandbox.js';

export const SANDBOX_ROUTES = {
  /** 200 and the grant; 404 when the session has no sandbox; 503 when bwrap cannot run here. */
  sessionGrant: 'GET /api/internal/sandbox/sessions/:sessionId',
} as const;

export class SandboxClient {
  constructor(private readonly host: HostClient) {}

  sessionGrant(sessionId: string, as: CallAs): Promise<{ status: number; body: (SandboxGrant & { error?: unknown }) | null }> {
    return callRoute(this.host, SANDBOX_ROUTES.sessionGrant, { params: { sessionId } }, as);
  }
}
