import { Migration } from '@mikro-orm/migrations';

/**
 * Organizations, owners, bank accounts, the coverage catalog, policies and charges.
 * Constraints here are the last line of defence behind the input rules.
 */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization (
        id uuid primary key,
        parent_id uuid references organization (id),
        owner_sub text not null,
        -- Filled by organization_set_ancestry() from the parent row; read by the access rule.
        path uuid[] not null,
        owner_subs text[] not null,
        name text not null,
        description text,
        logo text,
        type text,
        descriptor text,
        legal_name text not null,
        legal_type text not null,
        tax_id text not null,
        phone text,
        email text,
        website text,
        address jsonb,
        created_at timestamptz not null default now(),
        constraint organization_path_ends_with_self check (path[cardinality(path)] = id),
        constraint organization_owner_in_owner_subs check (owner_sub = any (owner_subs))
      );
      create index organization_parent_id_index on organization (parent_id);

      -- The ancestry arrays are derived from the parent row in the database itself, so no
      -- caller can get them wrong; parent and owner never change once written.
      create function organization_set_ancestry() returns trigger language plpgsql as $$
      declare
        parent_path uuid[];
        parent_owner_subs text[];
      begin
        if tg_op = 'UPDATE' then
          if new.parent_id is distinct from old.parent_id or new.owner_sub <> old.owner_sub then
            raise exception 'an organization''s parent and owner cannot change';
          end if;
          new.path := old.path;
          new.owner_subs := old.owner_subs;
          return new;
        end if;
        if new.parent_id is null then
          new.path := array[new.id];
          new.owner_subs := array[new.owner_sub];
          return new;
        end if;
        select path, owner_subs into parent_path, parent_owner_subs from organization where id = new.parent_id;
        if not found then
          raise foreign_key_violation using message = 'parent organization does not exist';
        end if;
        new.path := parent_path || new.id;
        new.owner_subs := case when new.owner_sub = any (parent_owner_subs)
          then parent_owner_subs else parent_owner_subs || new.owner_sub end;
        return new;
      end $$;
      create trigger organization_ancestry before insert or update on organization
        for each row execute function organization_set_ancestry();

      create table bank_account (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        position smallint not null,
        nickname text,
        routing text not null,
        account_ciphertext text not null,
        account_key_id text not null,
        account_last4 text not null,
        constraint bank_account_position_unique unique (organization_id, position)
      );

      create table owner (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        position smallint not null,
        firstname text not null,
        lastname text not null,
        birthdate date,
        tax_id_ciphertext text,
        tax_id_key_id text,
        tax_id_last4 text,
        email text,
        phone text,
        ownership double precision check (ownership > 0 and ownership <= 100),
        address jsonb,
        constraint owner_position_unique unique (organization_id, position),
        constraint owner_tax_id_sealed check ((tax_id_ciphertext is null) = (tax_id_key_id is null))
      );

      create table coverage_plan (
        slug text primary key,
        name text not null,
        deductible integer not null check (deductible >= 0),
        reimbursement_rate numeric(4, 3) not null check (reimbursement_rate > 0 and reimbursement_rate <= 1),
        annual_limit integer check (annual_limit > 0),
        monthly_premium integer not null check (monthly_premium > 0),
        currency text not null check (currency ~ '^[A-Z]{3}$')
      );
      insert into coverage_plan (slug, name, deductible, reimbursement_rate, annual_limit, monthly_premium, currency) values
        ('accident-only', 'Accident Only', 25000, 0.9, 500000, 1200, 'USD'),
        ('accident-illness-basic', 'Accident & Illness Basic', 50000, 0.8, 500000, 2900, 'USD'),
        ('accident-illness-plus', 'Accident & Illness Plus', 25000, 0.9, 1500000, 4200, 'USD'),
        ('accident-illness-unlimited', 'Accident & Illness Unlimited', 10000, 0.9, null, 6400, 'USD');

      create table policy (
        id uuid primary key,
        number bigint not null constraint policy_number_unique unique
          check (number between 1 and 9007199254740991),
        internal_id text,
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
        created_by_sub text not null,
        created_at timestamptz not null default now(),
        constraint policy_term_positive check (expiration_date > effective_date)
      );
      create index policy_organization_id_index on policy (organization_id);

      -- Server-assigned numbers come from this sequence, skipping numbers clients chose.
      create sequence policy_number_seq as bigint minvalue 1 maxvalue 9007199254740991;
      create function next_policy_number() returns bigint language plpgsql as $$
      declare
        candidate bigint;
      begin
        loop
          candidate := nextval('policy_number_seq');
          exit when not exists (select 1 from policy where number = candidate);
        end loop;
        return candidate;
      end $$;

      create table charge (
        id uuid primary key,
        policy_id uuid not null references policy (id) on delete cascade,
        sequence smallint not null,
        type text not null check (type in ('premium')),
        period_start date not null,
        period_end date not null,
        due_date date not null,
        amount integer not null check (amount >= 0),
        currency text not null,
        status text not null check (status in ('scheduled')),
        constraint charge_sequence_unique unique (policy_id, sequence),
        constraint charge_period_positive check (period_end > period_start)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table charge;
      drop function next_policy_number();
      drop sequence policy_number_seq;
      drop table policy;
      drop table coverage_plan;
      drop table owner;
      drop table bank_account;
      drop table organization;
      drop function organization_set_ancestry();
    `);
  }
}
