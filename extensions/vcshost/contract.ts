// The vcshost extension's contract with its callers (work-tasks checks the blocklist and opens pull
// requests through it) and with the subscribers of its events. It imports nothing of vcshost's own
// code; vcshost types its handlers with it. The public /api/vcshost/* routes are the HTTP API's.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const VCSHOST_ROUTES = {
  blocked: 'GET /api/internal/vcshost/blocked',
  openPull: 'POST /api/internal/vcshost/pulls',
} as const;

export const VCSHOST_EVENTS = {
  /**
   * A pull request was merged, closed or reopened (an inbound code-host webhook): {@link PullStateEvent},
   * for the instance's tenant. Work tasks that opened it record the state; vcshost asks nothing back,
   * so vcshost never calls work-tasks (work-tasks calls vcshost).
   */
  pullState: 'vcshost.pull_state',
} as const;

export type PullState = 'open' | 'closed' | 'merged';

export interface PullStateEvent {
  /** owner/name as the code host spells it. */
  repo: string;
  number: number;
  state: PullState;
}

export interface BlockedReply {
  repo: string;
  blocked: boolean;
  /** The blocklist entry that blocks it (the repository or `owner/*`). */
  entry: string | null;
}

export interface OpenPullRequest {
  repo: string;
  title: string;
  body?: string;
  head: string;
  /** The repository's default branch when left out. */
  base?: string;
  draft?: boolean;
}

export interface OpenPullReply {
  number: number;
  url: string;
  state: string;
  /** False when an open pull request of the same head was there already (it is answered instead). */
  created: boolean;
}

type Reply<T> = Promise<{ status: number; body: T | null }>;

export class VcshostClient {
  constructor(private readonly host: HostClient) {}

  blocked(repo: string, as: CallAs): Reply<BlockedReply> {
    return callRoute(this.host, VCSHOST_ROUTES.blocked, { query: { repo } }, as);
  }

  openPull(pull: OpenPullRequest, as: CallAs): Reply<OpenPullReply> {
    return callRoute(this.host, VCSHOST_ROUTES.openPull, { body: pull }, as);
  }
}
