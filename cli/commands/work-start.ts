// `roost work start [name] [--issue N] [--kind K]`
import type { CommandHandler } from '../tree.js';
import { startWork } from '../work/start.js';

export const handler: CommandHandler = async ({ args, options }, ctx) => {
  const started = await startWork(ctx, {
    name: args[0],
    kind: options.kind === undefined ? undefined : String(options.kind),
    issue: options.issue === undefined ? undefined : String(options.issue),
  });
  return { data: started, text: `Started ${started.branch} (from ${started.base}), pushed to ${started.upstream}.${'issueTitle' in started ? ` Issue #${started.issue}: ${started.issueTitle}` : ''}` };
};
