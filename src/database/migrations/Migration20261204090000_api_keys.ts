import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 20: API keys for server-to-server integrators. A key's text is never stored,
 * only its keyed hash (auth/api-key-format.ts), unique, so that authenticating is one index probe.
 * `lifetime_days` is kept so a rotation can give the new key the same lifetime. A revoked key
 * keeps its row (the audit log and events name it); revocation and rotation only ever move
 * `revoked_at` and `expires_at` earlier, which the trigger holds the rows to, with
 * `last_used_at` (written at most once a minute) the only other column that changes.
 */
export class Migration20261204090000_api_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table api_key (
        id uuid primary key,
        seq bigint generated always as identity,
        organization_id uuid not null references organization (id),
        name text not null check (char_length(name) between 1 and 100),
        scopes text[] not null check (cardinality(scopes) > 0),
        prefix text not null,
        hash text not null unique,
        lifetime_days int not null check (lifetime_days between 1 and 365),
        created_at timestamptz not null default now(),
        created_by_sub text not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        last_used_at timestamptz,
        rotated_from uuid references api_key (id)
      );
      create index api_key_organization_index on api_key (organization_id, seq);

      create function api_key_only_narrows() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          raise exception 'API keys are never deleted; revoke them';
        end if;
        if (new.id, new.organization_id, new.name, new.scopes, new.prefix, new.hash, new.lifetime_days, new.created_at,
            new.created_by_sub, new.rotated_from) is distinct from
           (old.id, old.organization_id, old.name, old.scopes, old.prefix, old.hash, old.lifetime_days, old.created_at,
            old.created_by_sub, old.rotated_from)
           or new.expires_at > old.expires_at
           or (old.revoked_at is not null and new.revoked_at is distinct from old.revoked_at) then
          raise exception 'an API key only ever expires earlier, is revoked once, and records when it was last used';
        end if;
        return new;
      end $$;
      create trigger api_key_only_narrows before update or delete on api_key
        for each row execute function api_key_only_narrows();
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table api_key; drop function api_key_only_narrows();');
  }
}
