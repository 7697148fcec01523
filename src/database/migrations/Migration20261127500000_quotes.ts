import { Migration } from '@mikro-orm/migrations';

/**
 * Quotes (contract section 14): a price for a policy body, valid until `expires_at`, that
 * issuing turns into a policy at that price. A quote stores its coverage snapshot and its
 * premium schedule (`charges`, the rows issuing will write, without ids), so a catalog change
 * after quoting never changes what was quoted (docs/decisions.md). `status` is not stored:
 * `issued` when `policy_id` is set, else `expired` once `expires_at` has passed, else `open`,
 * decided at read time so that no job has to flip rows when they expire.
 */
export class Migration20261127500000_quotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table quote (
        id uuid primary key,
        organization_id uuid not null references organization (id),
        owner_firstname text not null,
        owner_lastname text not null,
        owner_dob date,
        pet_name text not null,
        pet_dob date,
        effective_date date not null,
        expiration_date date not null,
        coverage_slug text not null references coverage_plan (slug),
        coverage jsonb not null,
        charges jsonb not null
          constraint quote_charges_list check (jsonb_typeof(charges) = 'array' and jsonb_array_length(charges) between 1 and 61),
        total_premium integer not null check (total_premium >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        created_by_sub text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        -- Set once, by issuing, in the transaction that creates the policy.
        policy_id uuid constraint quote_policy_unique unique references policy (id),
        issued_at timestamptz,
        constraint quote_term_positive check (expiration_date > effective_date),
        constraint quote_issued_whole check ((policy_id is null) = (issued_at is null))
      );
      create index quote_organization_id_index on quote (organization_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table quote;');
  }
}
