// Credits move only through the credits extension's internal escrow routes, called through the kernel
// as the caller of the request being served. Its errors (an unknown agent, too few credits) are passed
// on with their own status and code.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { CreditsClient, type EscrowHoldRequest } from '../credits/contract.js';

interface Reply {
  status: number;
  body: any;
}

function check(reply: Reply, what: string): any {
  if (reply.status >= 200 && reply.status < 300) return reply.body;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'paid listings need the credits extension, and it is not loaded');
  const code = typeof reply.body?.code === 'string' ? reply.body.code : 'UPSTREAM_ERROR';
  const message = typeof reply.body?.error === 'string' ? reply.body.error : `the credits extension answered ${reply.status} to ${what}`;
  throw new RoostError(code, message, { status: reply.status >= 400 ? reply.status : 502 });
}

export async function holdEscrow(ctx: ExtensionContext, requestId: string, body: EscrowHoldRequest): Promise<{ id: string }> {
  const reply = await new CreditsClient(ctx.host).holdEscrow(body, { requestId });
  return check(reply, 'an escrow hold').escrow as { id: string };
}

/** `as` is the request being served, or the buyer's tenant when the settler releases an overdue use. */
export async function settleEscrow(ctx: ExtensionContext, as: CallAs, escrowId: string, outcome: 'release' | 'refund'): Promise<void> {
  check(await new CreditsClient(ctx.host).settleEscrow(escrowId, outcome, as), `an escrow ${outcome}`);
}
