// svc_send_message and POST /api/mcp/send-message: deliver, wait for the recipient's reply, and record
// the reply as a message back to the sender in the same thread.
import { RoostError } from '../../protocol/errors.js';
import { waitForReply } from '../sessions/contract-reply.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { recordAgentMessage as recordMessage } from '../agents/contract.js';
import { deliver, type Outgoing } from './deliver.js';
import { sendOnchain } from './onchain.js';

export interface Exchange {
  reply: string;
  thread: string;
  sessionId: string;
  from: { id: string; name: string };
  to: { id: string; name: string };
  messageId: string;
  replyId: string;
  /** MicroUnits the recipient's answer cost. */
  cost: number;
}

export async function sendAndWait(ctx: ExtensionContext, tenantId: string, as: CallAs, out: Outgoing & { from: string }): Promise<Exchange> {
  const sent = await deliver(ctx, tenantId, as, out);
  const timeoutMs = sent.settings.replyTimeoutSeconds * 1000;
  const answer = await waitForReply(ctx.host, as, sent.sessionId, sent.after, { timeoutMs }).catch((err: unknown) => {
    if (err instanceof RoostError && err.code === 'TIMEOUT') {
      throw new RoostError('TIMEOUT', `${sent.to.name} did not answer within ${sent.settings.replyTimeoutSeconds} s; the message was delivered (thread ${sent.thread}, session ${sent.sessionId}), and its reply will be in that session`);
    }
    throw err;
  });
  const from = sent.from!;
  const reply = await sendOnchain(ctx, as, await recordMessage(ctx.host, as, { from: sent.to.id, to: from.id, content: answer.text, sessionId: sent.sessionId, thread: sent.thread }));
  return { reply: answer.text, thread: sent.thread, sessionId: sent.sessionId, from, to: sent.to, messageId: sent.message.id, replyId: reply.id, cost: answer.cost };
}
