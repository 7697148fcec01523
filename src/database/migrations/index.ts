import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';
import { Migration20261122010000_ordering } from './Migration20261122010000_ordering.js';
import { Migration20261122020000_idempotency } from './Migration20261122020000_idempotency.js';
import { Migration20261123000000_caller_limits } from './Migration20261123000000_caller_limits.js';
import { Migration20261123010000_entry_points } from './Migration20261123010000_entry_points.js';
import { Migration20261123020000_policy_ancestry } from './Migration20261123020000_policy_ancestry.js';
import { Migration20261123030000_events } from './Migration20261123030000_events.js';
import { Migration20261124000000_observability } from './Migration20261124000000_observability.js';
import { Migration20261125000000_pgboss_12 } from './Migration20261125000000_pgboss_12.js';
import { Migration20261126000000_webhook_endpoint_quota } from './Migration20261126000000_webhook_endpoint_quota.js';
import { Migration20261126010000_webhook_endpoint_health } from './Migration20261126010000_webhook_endpoint_health.js';
import { Migration20261126120000_organization_depth } from './Migration20261126120000_organization_depth.js';
import { Migration20261127100000_policy_ledger } from './Migration20261127100000_policy_ledger.js';
import { Migration20261127500000_quotes } from './Migration20261127500000_quotes.js';
import { Migration20261128100000_org_update } from './Migration20261128100000_org_update.js';
import { Migration20261128200000_life_renew_renewal_of } from './Migration20261128200000_life_renew_renewal_of.js';
import { Migration20261129100000_events_ops_event_actor } from './Migration20261129100000_events_ops_event_actor.js';
import { Migration20261130100000_kept_answer_codes } from './Migration20261130100000_kept_answer_codes.js';
import { Migration20261129200000_rest_reads_internal_id } from './Migration20261129200000_rest_reads_internal_id.js';

/** Every migration in order, listed so they load the same from TypeScript and compiled code. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_ordering', class: Migration20261122010000_ordering },
  { name: 'Migration20261122020000_idempotency', class: Migration20261122020000_idempotency },
  { name: 'Migration20261123000000_caller_limits', class: Migration20261123000000_caller_limits },
  { name: 'Migration20261123010000_entry_points', class: Migration20261123010000_entry_points },
  { name: 'Migration20261123020000_policy_ancestry', class: Migration20261123020000_policy_ancestry },
  { name: 'Migration20261123030000_events', class: Migration20261123030000_events },
  { name: 'Migration20261124000000_observability', class: Migration20261124000000_observability },
  { name: 'Migration20261125000000_pgboss_12', class: Migration20261125000000_pgboss_12 },
  { name: 'Migration20261126000000_webhook_endpoint_quota', class: Migration20261126000000_webhook_endpoint_quota },
  { name: 'Migration20261126010000_webhook_endpoint_health', class: Migration20261126010000_webhook_endpoint_health },
  { name: 'Migration20261126120000_organization_depth', class: Migration20261126120000_organization_depth },
  { name: 'Migration20261127100000_policy_ledger', class: Migration20261127100000_policy_ledger },
  { name: 'Migration20261127500000_quotes', class: Migration20261127500000_quotes },
  { name: 'Migration20261128100000_org_update', class: Migration20261128100000_org_update },
  { name: 'Migration20261128200000_life_renew_renewal_of', class: Migration20261128200000_life_renew_renewal_of },
  { name: 'Migration20261129100000_events_ops_event_actor', class: Migration20261129100000_events_ops_event_actor },
  { name: 'Migration20261129200000_rest_reads_internal_id', class: Migration20261129200000_rest_reads_internal_id },
  { name: 'Migration20261130100000_kept_answer_codes', class: Migration20261130100000_kept_answer_codes },
];
