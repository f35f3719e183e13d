// Chainchat's running state: its parts, built once by setup and handed to every route, tool and the
// poller after ctx (no module keeps them). Shutdown stops the poller.
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { Accounts } from './accounts.js';
import { Allowlist } from './allowlist.js';
import { Chain } from './chain.js';
import { Clock } from './clock.js';
import { readConfig, type ChainchatConfig, type Network } from './config.js';
import { Contacts } from './contacts.js';
import { Conversations } from './conversations.js';
import { InboundState } from './inbound-state.js';
import { Poller } from './poller.js';
import { PskKeys } from './psk-keys.js';

export interface State {
  ctx: ExtensionContext;
  config: ChainchatConfig;
  clock: Clock;
  sealer: Sealer;
  accounts: Accounts;
  keys: PskKeys;
  contacts: Contacts;
  allowlist: Allowlist;
  conversations: Conversations;
  inbound: InboundState;
  /** Each participant's turn in flight, by "<tenant>\n<address>": the next waits behind it. */
  turns: Map<string, Promise<void>>;
  poller: Poller;
  chain(network: Network): Chain;
}

export async function startState(ctx: ExtensionContext): Promise<State> {
  const config = readConfig(ctx);
  const sealer = await Sealer.forExtension(ctx.host);
  const clock = new Clock();
  const chains = new Map<Network, Chain>();
  const state = {
    ctx, config, clock, sealer,
    accounts: new Accounts(ctx.db, sealer, config.defaultNetwork),
    keys: new PskKeys(ctx.db, sealer, clock.now),
    contacts: new Contacts(ctx.db),
    allowlist: new Allowlist(ctx.db),
    conversations: new Conversations(ctx.db, ctx.sql, sealer),
    inbound: new InboundState(ctx.db),
    turns: new Map(),
    chain(network: Network) {
      let chain = chains.get(network);
      if (!chain) chains.set(network, (chain = new Chain(config, network)));
      return chain;
    },
  } as Omit<State, 'poller'> as State;
  state.poller = new Poller(state);
  state.poller.start();
  return state;
}

export async function stopState(_ctx: ExtensionContext, state: State): Promise<void> {
  await state.poller.stop();
}
