// Stripe's failures as the house's errors: what Stripe refused is the caller's 400, the rest a 502.
import Stripe from 'stripe';
import { RoostError } from '../../protocol/errors.js';

export async function atStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RoostError) throw err;
    if (err instanceof Stripe.errors.StripeInvalidRequestError) throw new RoostError('VALIDATION_ERROR', `Stripe refused to ${what}: ${err.message}`);
    const message = err instanceof Error ? err.message : String(err);
    throw new RoostError('UPSTREAM_ERROR', `Stripe could not ${what}: ${message}`);
  }
}
