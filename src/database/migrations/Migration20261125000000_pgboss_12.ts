import { Migration } from '@mikro-orm/migrations';

/**
 * The job queue moves from pg-boss 10 to pg-boss 12, which cannot migrate pg-boss 10's schema
 * (`pgboss`, schema version 24): its oldest starting version is 25, pg-boss 11's, and pg-boss 11
 * does not migrate 24 either (timgit/pg-boss#590, #668). Rather than porting pg-boss 10's jobs
 * into pg-boss 12's tables by hand (SQL against two internal layouts, neither ours), the queue is
 * rebuilt from what is ours: `webhook_delivery` holds every delivery still to make, with its
 * attempts and the time of the next one. Every pending delivery is marked unqueued and pg-boss
 * 10's schema dropped, in this migration's transaction; pg-boss 12 creates its schema when the
 * service starts, and the relay (src/webhooks/delivery-relay.ts) enqueues each pending delivery again,
 * as its next attempt (attempts + 1), not before its `next_attempt_at`. A pending delivery whose
 * job pg-boss 10 had lost (its expiry retries used up) is enqueued again too.
 *
 * The `pgboss` schema holds the service's queue only (pg-boss's default schema, one queue:
 * `webhook-delivery`), so nothing else is dropped with it. On a new database, or one pg-boss 12
 * (schema 25 or later) already runs on, nothing is done. Instances of the previous release must
 * be stopped first: one still running would write pg-boss 10 jobs into pg-boss 12's schema, or
 * fail to record its attempts (each would then be made again, after the upgrade: at least once).
 */
export class Migration20261125000000_pgboss_12 extends Migration {
  override async up(): Promise<void> {
    // Dynamic SQL: pgboss.version is read only when it exists.
    this.addSql(`
      do $$
      declare
        queue_version int;
      begin
        if to_regclass('pgboss.version') is null then
          return;
        end if;
        execute 'select max(version)::int from pgboss.version' into queue_version;
        if queue_version is null or queue_version < 25 then
          update webhook_delivery set enqueued = false where status = 'pending';
          drop schema pgboss cascade;
        end if;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    // Not reversible: pg-boss 10 cannot use pg-boss 12's schema, and the previous release's relay
    // enqueues every delivery as attempt 1, which its worker skips for one already attempted.
    throw new Error("Migration20261125000000_pgboss_12 cannot be undone: pg-boss 10 cannot use pg-boss 12's queue");
  }
}
