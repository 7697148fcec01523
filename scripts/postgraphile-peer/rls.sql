-- The access rule of docs/access-rule.md as row-level security, for the PostGraphile peer only
-- (scripts/bench-postgraphile.ts applies it, in one transaction, before the peer starts; safe to
-- run again). The service connects as the superuser and owns the tables, so RLS does not apply
-- to it; other roles without a policy here see no rows of these tables.
do $$
begin
  if not exists (select from pg_roles where rolname = 'postgraphile_reader') then
    create role postgraphile_reader nologin;
  end if;
end $$;

-- What the policy read needs, nothing more: no other table, no write.
grant usage on schema public to postgraphile_reader;
grant select on organization, policy, charge to postgraphile_reader;

alter table organization enable row level security;
alter table policy enable row level security;
alter table charge enable row level security;

-- PostGraphile sets the token's claims as jwt.claims.* for the transaction. A setting not set in
-- this transaction reads as null, or as '' once set in an earlier one of the session: nullif.
drop policy if exists postgraphile_reader_select on organization;
create policy postgraphile_reader_select on organization for select to postgraphile_reader
  using (nullif(current_setting('jwt.claims.org', true), '')::uuid = any (path)
         or current_setting('jwt.claims.sub', true) = any (owner_subs));

-- A policy is visible when its organization is: the subquery reads organization under its policy.
drop policy if exists postgraphile_reader_select on policy;
create policy postgraphile_reader_select on policy for select to postgraphile_reader
  using (exists (select 1 from organization o where o.id = policy.organization_id));

-- A charge when its policy is (and so its organization).
drop policy if exists postgraphile_reader_select on charge;
create policy postgraphile_reader_select on charge for select to postgraphile_reader
  using (exists (select 1 from policy p where p.id = charge.policy_id));

-- A successor's renewal_of refers to policy itself: PostGraphile would name the forward and the
-- backward relation alike (policyByRenewalOf) and refuse to start. Named apart, where it exists
-- (a database migrated before renewals has no such constraint).
do $$ begin
  if exists (select 1 from pg_constraint where conname = 'policy_renewal_of_fkey') then
    comment on constraint policy_renewal_of_fkey on policy is E'@fieldName renewalOfPolicy\n@foreignSingleFieldName renewedByPolicy';
  end if;
end $$;
