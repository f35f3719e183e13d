// Chainchat as a notification channel (docs/bridges.md, "The contract"): the notifications extension
// delivers notifications and owner questions to an address ({type: "chainchat", address}); a question
// carries a short id the owner answers with /answer <id> <text>.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { deliverSchema, withPriority, type DeliverBody } from '../../sdk/bridge/contract.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { mustBeAddress } from './addresses.js';
import { sendText } from './outbound.js';
import type { State } from './state.js';

const schema = deliverSchema('chainchat');

export const bridgeRoutes: Record<string, RouteHandler<State>> = {
  async 'POST /api/internal/bridges/chainchat/deliver'(req, _ctx, s) {
    const body = validate<DeliverBody>(schema, req.body);
    const address = body.channel.address;
    if (typeof address !== 'string') throw validationError('body.channel.address is required: the Algorand address to deliver to');
    mustBeAddress(address, 'body.channel.address');
    const account = await s.accounts.of(req.auth.tenantId);
    let text = withPriority(body);
    if (body.kind === 'question') {
      const shortId = await s.inbound.addPrompt(req.auth.tenantId, { kind: 'question', refId: body.question!.id, address });
      const options = body.question!.options.map((o, i) => `${i + 1}) ${o}`).join('  ');
      text = `Question from your agent: ${body.text}${options ? `\nOptions: ${options}` : ''}\nReply /answer ${shortId} <your answer>.`;
    }
    const message = await sendText(s, account, address, text);
    return ok({ externalId: message.txids[0] });
  },
};
