// What a work task asks of the code host, through the codehost extension's internal routes: whether
// a repository is blocked, and opening the pull request.
import { RoostError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../_shared/host-client.js';

type Body = Record<string, unknown> | null;

function orThrow(reply: { status: number; body: Body }, what: string): Record<string, unknown> {
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the codehost extension, which is not loaded`);
  }
  if (reply.status >= 400 || !reply.body) {
    const why = typeof reply.body?.error === 'string' ? reply.body.error : `status ${reply.status}`;
    throw new RoostError(typeof reply.body?.code === 'string' ? reply.body.code : 'UPSTREAM_ERROR', `${what} failed: ${why}`, { status: reply.status });
  }
  return reply.body;
}

export async function isBlocked(host: HostClient, as: CallAs, repo: string): Promise<boolean> {
  const reply = await host.call<Body>('GET', `/api/internal/vcshost/blocked?repo=${encodeURIComponent(repo)}`, undefined, as);
  return orThrow(reply, `checking repository ${repo} against the blocklist`).blocked === true;
}

export interface OpenedPull {
  number: number;
  url: string;
  state: string;
}

export async function openPull(host: HostClient, as: CallAs, pull: { repo: string; title: string; body: string; head: string; base: string }): Promise<OpenedPull> {
  const body = orThrow(await host.call<Body>('POST', '/api/internal/vcshost/pulls', pull, as), `opening a pull request on ${pull.repo}`);
  return { number: Number(body.number), url: String(body.url), state: String(body.state) };
}
