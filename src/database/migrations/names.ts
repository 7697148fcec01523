/**
 * Every migration in order, by name: each is the file `<name>.ts` exporting the class `<name>`.
 * The one list: the migrator loads the classes from it (index.ts), and the readiness check
 * compares it with the database's table of applied migrations without loading the migrator.
 */
export const MIGRATION_NAMES: readonly string[] = [
  'Migration20261122000000_initial',
  'Migration20261122010000_ordering',
  'Migration20261122020000_idempotency',
  'Migration20261123000000_caller_limits',
  'Migration20261123010000_entry_points',
  'Migration20261123020000_policy_ancestry',
  'Migration20261123030000_events',
  'Migration20261124000000_observability',
  'Migration20261125000000_pgboss_12',
  'Migration20261126000000_webhook_endpoint_quota',
  'Migration20261126010000_webhook_endpoint_health',
  'Migration20261126120000_organization_depth',
  'Migration20261127100000_policy_ledger',
  'Migration20261127500000_quotes',
  'Migration20261128100000_org_update',
  'Migration20261128200000_life_renew_renewal_of',
  'Migration20261129100000_events_ops_event_actor',
  'Migration20261129200000_rest_reads_internal_id',
  'Migration20261130100000_kept_answer_codes',
];
