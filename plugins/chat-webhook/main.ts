// `roost notify <message…> [--json]` posts the message to the webhook stored by
// `roost notify --setup [--webhook <url>]` (or ROOST_NOTIFY_WEBHOOK, which wins).
import { RoostError } from '../../protocol/errors.js';
import { parseFlags, runPlugin } from '../../sdk/plugin-client.js';
import { checkWebhook, postMessage } from './webhook.js';

const STORE_KEY = 'webhook';

const USAGE = 'usage: roost notify <message…> [--json]\n       roost notify --setup [--webhook <url>] [--json]\n  Posts the message to a Slack-compatible incoming webhook: ROOST_NOTIFY_WEBHOOK, else the one --setup\n  stored (asked for when --webhook is not given).';

runPlugin(async (ctx) => {
  const { values, positionals } = parseFlags(ctx.init.args, { setup: { type: 'boolean' }, webhook: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.setup) {
    if (positionals.length > 0) throw new RoostError('USAGE', '--setup takes no message');
    const url = checkWebhook(values.webhook ?? (await ctx.prompt('Webhook URL')));
    await ctx.host.store(STORE_KEY, url.href);
    if (values.json) ctx.json({ configured: true, webhook: url.origin });
    else ctx.print(`Webhook at ${url.origin} stored; roost notify <message> posts to it.`);
    return 0;
  }
  if (values.webhook !== undefined) throw new RoostError('USAGE', '--webhook goes with --setup');
  const text = positionals.join(' ').trim();
  if (!text) throw new RoostError('USAGE', 'nothing to send: roost notify <message>');
  const stored = process.env.ROOST_NOTIFY_WEBHOOK || (await ctx.host.load(STORE_KEY));
  if (!stored) throw new RoostError('USAGE', 'no webhook: run roost notify --setup, or set ROOST_NOTIFY_WEBHOOK');
  const url = checkWebhook(stored);
  await postMessage(url, text);
  if (values.json) ctx.json({ sent: true, webhook: url.origin, text });
  else ctx.print(`Sent to ${url.origin}.`);
  return 0;
}, USAGE);
