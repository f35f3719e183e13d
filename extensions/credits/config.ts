// The credit configuration of a tenant: whether credits are enforced, prices per 1,000 tokens (by
// "provider/model", then by provider, then a default), the reservation taken before each turn, and the
// grant every new wallet starts with. Defaults are chosen so a newcomer's first sessions just work.
import type { Knex } from 'knex';
import { validationError } from '../../protocol/errors.js';
import type { SqlReader } from '../../sdk/sql.js';
import { MAX_AMOUNT } from './amounts.js';

export interface Price {
  inputPer1k: number;
  outputPer1k: number;
}

export interface CreditConfig {
  enabled: boolean;
  initialGrant: number;
  reservePerTurn: number;
  reservationTtlSeconds: number;
  defaultPrice: Price;
  prices: Record<string, Price>;
}

export const DEFAULT_CONFIG: CreditConfig = {
  enabled: true,
  // 5 credits: about fifty typical hosted-model turns before anyone has to fund the wallet.
  initialGrant: 5_000_000,
  // Enough for a turn of ~10k input and ~4k output tokens at the default price.
  reservePerTurn: 100_000,
  reservationTtlSeconds: 900,
  // 3 microUnits per input token and 15 per output token: with a credit worth a dollar, a hosted
  // model's list price of $3 / $15 per million tokens. Local models cost nothing.
  defaultPrice: { inputPer1k: 3_000, outputPer1k: 15_000 },
  prices: {
    anthropic: { inputPer1k: 3_000, outputPer1k: 15_000 },
    ollama: { inputPer1k: 0, outputPer1k: 0 },
  },
};

export class ConfigStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  /** Read on every new wallet and every turn: a prepared statement, not a query built through knex. */
  async get(tenantId: string): Promise<CreditConfig> {
    const row = await this.sql.get<{ config: string }>('SELECT config FROM credit_config WHERE tenant_id = ?', [tenantId]);
    return row ? { ...DEFAULT_CONFIG, ...(JSON.parse(row.config) as Partial<CreditConfig>) } : structuredClone(DEFAULT_CONFIG);
  }

  /** Merges a partial update (a given `prices` replaces the whole table) and returns the result. */
  async update(tenantId: string, patch: Partial<CreditConfig>): Promise<CreditConfig> {
    const config = { ...(await this.get(tenantId)), ...patch };
    await this.db('credit_config')
      .insert({ tenant_id: tenantId, config: JSON.stringify(config), updated_at: new Date().toISOString() })
      .onConflict('tenant_id').merge();
    return config;
  }
}

export function priceFor(config: CreditConfig, provider: string | null, model: string | null): Price {
  return (provider && model ? config.prices[`${provider}/${model}`] : undefined)
    ?? (provider ? config.prices[provider] : undefined)
    ?? config.defaultPrice;
}

/** microUnits for a turn, rounded up so a non-zero price never rounds to free. */
export function costOf(price: Price, inputTokens: number, outputTokens: number): number {
  const thousandths = BigInt(inputTokens) * BigInt(price.inputPer1k) + BigInt(outputTokens) * BigInt(price.outputPer1k);
  const cost = (thousandths + 999n) / 1000n;
  if (cost > BigInt(MAX_AMOUNT)) throw validationError(`the cost of ${inputTokens} input and ${outputTokens} output tokens is beyond the safe integer range`);
  return Number(cost);
}
