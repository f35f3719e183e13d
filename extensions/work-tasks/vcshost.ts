// What a work task asks of the code host, through the vcshost extension's internal routes: whether
// a repository is blocked, and opening the pull request.
import { RoostError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { VcshostClient, type OpenPullRequest } from '../vcshost/contract.js';

type Body = Record<string, unknown> | null;

function orThrow(reply: { status: number; body: unknown }, what: string): Record<string, unknown> {
  const body = reply.body as Body;
  if (reply.status === 404 && body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the vcshost extension, which is not loaded`);
  }
  if (reply.status >= 400 || !body) {
    const why = typeof body?.error === 'string' ? body.error : `status ${reply.status}`;
    throw new RoostError(typeof body?.code === 'string' ? body.code : 'UPSTREAM_ERROR', `${what} failed: ${why}`, { status: reply.status });
  }
  return body;
}

export async function isBlocked(host: HostClient, as: CallAs, repo: string): Promise<boolean> {
  const reply = await new VcshostClient(host).blocked(repo, as);
  return orThrow(reply, `checking repository ${repo} against the blocklist`).blocked === true;
}

export interface OpenedPull {
  number: number;
  url: string;
  state: string;
}

export async function openPull(host: HostClient, as: CallAs, pull: OpenPullRequest): Promise<OpenedPull> {
  const body = orThrow(await new VcshostClient(host).openPull(pull, as), `opening a pull request on ${pull.repo}`);
  return { number: Number(body.number), url: String(body.url), state: String(body.state) };
}
