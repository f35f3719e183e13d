// Chainchat's settings: ROOST_EXT_CHAINCHAT_* (the kernel also hands over ROOST_ALGOD_URL,
// ROOST_INDEXER_URL and ROOST_ALGOD_TOKEN as ALGOD_URL, INDEXER_URL, ALGOD_TOKEN). Read once at start.
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';
import { validationError } from '../../protocol/errors.js';

export type Network = 'testnet' | 'mainnet';

export interface ChainchatConfig {
  /** Per network: algod and indexer base URLs (one URL set serves both unless given per network). */
  algod: Record<Network, string>;
  indexer: Record<Network, string>;
  algodToken: string;
  indexerToken: string;
  defaultNetwork: Network;
  pollMs: number;
  /** How long a rotated-out exchange key is still accepted. */
  graceSeconds: number;
  maxChunks: number;
  /** An empty allowlist lets anyone in (false: closed, the default). */
  openWhenEmpty: boolean;
  /** Credits (microUnits) a new participant starts with. */
  initialCredits: number;
  /** Credits (microUnits) per microAlgo a participant pays in. */
  creditsPerMicroAlgo: number;
  /** Balance (microAlgos) mainnet needs before it is switched on. */
  mainnetMinBalance: number;
}

const PUBLIC_NODES: Record<Network, { algod: string; indexer: string }> = {
  testnet: { algod: 'https://testnet-api.algonode.cloud', indexer: 'https://testnet-idx.algonode.cloud' },
  mainnet: { algod: 'https://mainnet-api.algonode.cloud', indexer: 'https://mainnet-idx.algonode.cloud' },
};

function url(ctx: ExtensionContext, name: string, fallback: string): string {
  const value = stringSetting(ctx, name) ?? fallback;
  if (!/^https?:\/\//.test(value)) throw validationError(`ROOST_EXT_CHAINCHAT_${name} must be an http or https URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function flag(ctx: ExtensionContext, name: string): boolean {
  const value = stringSetting(ctx, name);
  if (value === undefined) return false;
  if (value !== 'true' && value !== 'false') throw validationError(`ROOST_EXT_CHAINCHAT_${name} must be true or false, got "${value}"`);
  return value === 'true';
}

export function readConfig(ctx: ExtensionContext): ChainchatConfig {
  const network = stringSetting(ctx, 'NETWORK') ?? 'testnet';
  if (network !== 'testnet' && network !== 'mainnet') throw validationError(`ROOST_EXT_CHAINCHAT_NETWORK must be testnet or mainnet, got "${network}"`);
  const perNetwork = (kind: 'algod' | 'indexer') => {
    const shared = stringSetting(ctx, `${kind.toUpperCase()}_URL`);
    return {
      testnet: url(ctx, `TESTNET_${kind.toUpperCase()}_URL`, shared ?? PUBLIC_NODES.testnet[kind]),
      mainnet: url(ctx, `MAINNET_${kind.toUpperCase()}_URL`, shared ?? PUBLIC_NODES.mainnet[kind]),
    };
  };
  return {
    algod: perNetwork('algod'),
    indexer: perNetwork('indexer'),
    algodToken: stringSetting(ctx, 'ALGOD_TOKEN') ?? '',
    indexerToken: stringSetting(ctx, 'INDEXER_TOKEN') ?? '',
    defaultNetwork: network,
    pollMs: integerSetting(ctx, 'POLL_MS', 4_000, 50, 600_000),
    graceSeconds: integerSetting(ctx, 'GRACE_SECONDS', 7 * 86_400, 0, 365 * 86_400),
    maxChunks: integerSetting(ctx, 'MAX_CHUNKS', 16, 1, 255),
    openWhenEmpty: flag(ctx, 'OPEN_WHEN_EMPTY'),
    initialCredits: integerSetting(ctx, 'INITIAL_CREDITS', 1_000_000, 0, 1_000_000_000),
    creditsPerMicroAlgo: integerSetting(ctx, 'CREDITS_PER_MICROALGO', 1, 0, 1_000_000),
    mainnetMinBalance: integerSetting(ctx, 'MAINNET_MIN_BALANCE', 1_000_000, 100_000, 1_000_000_000_000),
  };
}
