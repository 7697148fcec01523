import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 12, "Webhooks are fair between trees": an endpoint that keeps failing is
 * backed off as a whole, and disabled after the retry window.
 * - `failures`, `failing_since`, `retry_at`: consecutive failed attempts, since when, and the
 *   time before which none of its deliveries is attempted (written by src/webhooks/delivery-record.ts).
 * - `disabled_at`, `disabled_reason`: set once it has failed for the whole retry window; it then
 *   gets no new deliveries (the trigger below drops them in the event's own transaction, so the
 *   fan-out trigger stays as it was) and its pending ones are failed.
 */
export class Migration20261126010000_webhook_endpoint_health extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoint
        add column failures int not null default 0,
        add column failing_since timestamptz,
        add column retry_at timestamptz,
        add column disabled_at timestamptz,
        add column disabled_reason text;

      create function webhook_delivery_skip_disabled() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from webhook_endpoint w where w.id = new.endpoint_id and w.disabled_at is not null) then
          return null;
        end if;
        return new;
      end $$;
      create trigger webhook_delivery_skip_disabled before insert on webhook_delivery
        for each row execute function webhook_delivery_skip_disabled();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger webhook_delivery_skip_disabled on webhook_delivery;
      drop function webhook_delivery_skip_disabled();
      alter table webhook_endpoint drop column failures, drop column failing_since, drop column retry_at,
        drop column disabled_at, drop column disabled_reason;
    `);
  }
}
