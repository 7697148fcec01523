import type { RestRoute } from './route-entry.js';
import { API_KEY_ROUTES } from './routes/api-keys.js';
import { AUDIT_LOG_ROUTES } from './routes/audit-log.js';
import { BILLING_ROUTES } from './routes/billing.js';
import { EVENT_ROUTES } from './routes/events.js';
import { ORGANIZATION_ROUTES } from './routes/organizations.js';
import { POLICY_ROUTES } from './routes/policies.js';
import { QUOTE_ROUTES } from './routes/quotes.js';
import { WEBHOOK_ROUTES } from './routes/webhooks.js';

/**
 * The REST compatibility layer as data (route-entry.ts): every `/api/v1` route, one entry each,
 * grouped by resource in the order the OpenAPI document lists them. Express registers them in
 * this order (rest-router.ts), so a path's methods keep their order in a 405's `Allow`.
 */
export const REST_ROUTES: readonly RestRoute[] = [
  ...ORGANIZATION_ROUTES,
  ...POLICY_ROUTES,
  ...BILLING_ROUTES,
  ...QUOTE_ROUTES,
  ...EVENT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...API_KEY_ROUTES,
  ...AUDIT_LOG_ROUTES,
];
