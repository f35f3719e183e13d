// Chainchat's parts, built once at start-up and shared by its routes, tools and poller.
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { Accounts, type Account } from './accounts.js';
import { Allowlist } from './allowlist.js';
import { Chain } from './chain.js';
import { Clock } from './clock.js';
import { readConfig, type ChainchatConfig, type Network } from './config.js';
import { Contacts } from './contacts.js';
import { Conversations } from './conversations.js';
import { InboundState } from './inbound-state.js';
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
  chain(network: Network): Chain;
}

let state: State | undefined;

export async function buildState(ctx: ExtensionContext): Promise<State> {
  const config = readConfig(ctx);
  const sealer = await Sealer.forExtension(ctx.host);
  const clock = new Clock();
  const chains = new Map<Network, Chain>();
  state = {
    ctx, config, clock, sealer,
    accounts: new Accounts(ctx.db, sealer, config.defaultNetwork),
    keys: new PskKeys(ctx.db, sealer, clock.now),
    contacts: new Contacts(ctx.db),
    allowlist: new Allowlist(ctx.db),
    conversations: new Conversations(ctx.db, sealer),
    inbound: new InboundState(ctx.db),
    chain(network) {
      let chain = chains.get(network);
      if (!chain) chains.set(network, (chain = new Chain(config, network)));
      return chain;
    },
  };
  return state;
}

export function getState(): State {
  if (!state) throw new Error('the chainchat extension has not started');
  return state;
}

export const chainOf = (s: State, account: Account): Chain => s.chain(account.network);
