// The billing extension's settings (ROOST_EXT_BILLING_*, handed to this extension alone), its Stripe
// client (host, port and protocol configurable, so tests point the real SDK at a local fake) and its two
// credentials, which are settings too: no other extension can read them.
import Stripe from 'stripe';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';

export interface BillingConfig {
  /** Stripe price id of each paid plan's flat monthly fee. */
  planPrices: Record<string, string>;
  /** Stripe price id of the metered credit usage, billed through the meter `meterEvent`. */
  meteredPrice: string;
  meterEvent: string;
  /** What a credit costs, in cents, by plan (GET /api/billing/calculate). */
  creditCents: Record<string, number>;
  currency: string;
  /** A tenant whose payment failed stays writable this long, then reads only until it pays. */
  graceSeconds: number;
  /** Webhook signatures older (or newer) than this are refused: replays of captured deliveries. */
  toleranceSeconds: number;
}

const API_KEY_SETTING = 'STRIPE_API_KEY';
const WEBHOOK_SECRET_SETTING = 'STRIPE_WEBHOOK_SECRET';

const DEFAULT_PRICES = { pro: 'price_roost_pro', enterprise: 'price_roost_enterprise' };
const DEFAULT_CREDIT_CENTS = { free: 100, pro: 90, enterprise: 75 };

function jsonSetting<T extends Record<string, string | number>>(ctx: ExtensionContext, name: string, fallback: T, type: 'string' | 'number'): T {
  const text = stringSetting(ctx, name);
  if (text === undefined) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationError(`ROOST_EXT_BILLING_${name} must be a JSON object`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== type || (type === 'number' && !(Number.isInteger(v) && (v as number) >= 0)))) {
    throw validationError(`ROOST_EXT_BILLING_${name} must be a JSON object of plan → ${type === 'number' ? 'whole number' : 'string'}`);
  }
  return value as T;
}

export function billingConfig(ctx: ExtensionContext): BillingConfig {
  return {
    planPrices: jsonSetting(ctx, 'PLAN_PRICES', DEFAULT_PRICES as Record<string, string>, 'string'),
    meteredPrice: stringSetting(ctx, 'METERED_PRICE') ?? 'price_roost_credits',
    meterEvent: stringSetting(ctx, 'METER_EVENT') ?? 'roost_credits',
    creditCents: jsonSetting(ctx, 'CREDIT_CENTS', DEFAULT_CREDIT_CENTS as Record<string, number>, 'number'),
    currency: stringSetting(ctx, 'CURRENCY') ?? 'usd',
    graceSeconds: integerSetting(ctx, 'GRACE_SECONDS', 7 * 86_400, 0, 365 * 86_400),
    toleranceSeconds: integerSetting(ctx, 'WEBHOOK_TOLERANCE_SECONDS', 300, 1, 86_400),
  };
}

/** The Stripe client, made on first use. */
export async function stripeClient(ctx: ExtensionContext): Promise<Stripe> {
  const key = stringSetting(ctx, API_KEY_SETTING);
  if (!key) throw new RoostError('EXTENSION_UNAVAILABLE', `billing is not configured: set ROOST_EXT_BILLING_${API_KEY_SETTING} to the Stripe secret key`);
  const protocol = stringSetting(ctx, 'STRIPE_PROTOCOL') ?? 'https';
  if (protocol !== 'http' && protocol !== 'https') throw validationError('ROOST_EXT_BILLING_STRIPE_PROTOCOL must be http or https');
  const host = stringSetting(ctx, 'STRIPE_HOST');
  return new Stripe(key, {
    ...(host ? { host } : {}),
    ...(stringSetting(ctx, 'STRIPE_PORT') ? { port: integerSetting(ctx, 'STRIPE_PORT', 443, 1, 65_535) } : {}),
    protocol,
    // A retried POST carries the same Idempotency-Key: Stripe applies it once.
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
}

export async function webhookSecret(ctx: ExtensionContext): Promise<string> {
  const secret = stringSetting(ctx, WEBHOOK_SECRET_SETTING);
  if (!secret) throw new RoostError('EXTENSION_UNAVAILABLE', `payment webhooks are not configured: set ROOST_EXT_BILLING_${WEBHOOK_SECRET_SETTING} to the endpoint's signing secret`);
  return secret;
}
