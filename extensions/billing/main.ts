// The billing extension: Stripe subscriptions for the paid plans, metered credit usage, invoices and
// the payment webhook; it tells the kernel each tenant's plan and billing state.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { subscriptionRoutes } from './routes-subscription.js';
import { usageRoutes } from './routes-usage.js';
import { webhookRoutes } from './webhooks.js';

runExtension({ migrations, routes: { ...subscriptionRoutes, ...usageRoutes, ...webhookRoutes } });
