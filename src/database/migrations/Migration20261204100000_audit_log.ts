import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 21, the audit log (docs/decisions.md, "The audit log"):
 * - `audit_entry`: one row per successful write, inserted by the write's own statement
 *   (src/audit/audit-entry.ts). `path` is the organization's path when the entry was written and
 *   `root_id` its first element, the tree whose chain the entry joins. `xid` is the writing
 *   transaction's id: the sealer (src/audit/audit-sealer.ts) seals only entries whose transaction
 *   has ended (below the snapshot's xmin), so it never chains past one still uncommitted.
 * - Sealing sets `position` (the entry's place in its tree's chain, 1, 2, ...), `prev_hash` and
 *   `hash` once, from null. Any other UPDATE, any DELETE and TRUNCATE are refused (SQLSTATE
 *   AU001), except the deletes of retention: `audit_entry_retain(cutoff)` sets the transaction
 *   setting `audit.retention` while it deletes a tree's oldest sealed entries, and records in
 *   `audit_anchor` the position and hash of the last one deleted, which verification starts from.
 * - `targets` and `changes` are json, not jsonb: kept as written, their keys in the writer's order
 *   (`{ type, id }`, `{ from, to }`), as the event's `data` is; the hash is over their canonical form.
 * - No foreign key to organization: a key check per write costs, and an entry names what it was
 *   written for, even if that row changed.
 */
export class Migration20261204100000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_entry (
        id uuid primary key,
        seq bigint generated always as identity,
        occurred_at timestamptz not null default now(),
        action text not null,
        actor_sub text not null,
        api_key_id text,
        ip text,
        user_agent text,
        request_id text,
        targets json not null default '[]' check (json_typeof(targets) = 'array'),
        organization_id uuid not null,
        path uuid[] not null,
        root_id uuid not null generated always as (path[1]) stored,
        changes json check (changes is null or json_typeof(changes) = 'object'),
        xid xid8 not null default pg_current_xact_id(),
        position bigint,
        prev_hash text,
        hash text,
        constraint audit_entry_sealed_whole check ((position is null) = (hash is null) and (hash is null) = (prev_hash is null))
      );
      -- The lists: a tree's entries newest first (the subtree is a filter on path along it), by action, by actor.
      create index audit_entry_root_seq_index on audit_entry (root_id, seq);
      create index audit_entry_root_action_index on audit_entry (root_id, action, seq);
      create index audit_entry_root_actor_index on audit_entry (root_id, actor_sub, seq);
      -- Retention finds the old entries by time.
      create index audit_entry_occurred_at_index on audit_entry (occurred_at);
      -- The sealer: what is still to seal, in insertion order (the rows leave it once sealed).
      create index audit_entry_unsealed_index on audit_entry (seq) where hash is null;
      -- One entry per place in a tree's chain; empty at insert (no cost to the write), filled by sealing.
      create unique index audit_entry_chain_unique on audit_entry (root_id, position) where position is not null;

      -- Where a tree's chain starts once retention has deleted its oldest entries: the last deleted one's position and hash.
      create table audit_anchor (
        root_id uuid primary key,
        position bigint not null,
        hash text not null
      );

      create function audit_entry_guard() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.hash is null and new.hash is not null
          and (to_jsonb(new) - array['position', 'prev_hash', 'hash', 'root_id']) = (to_jsonb(old) - array['position', 'prev_hash', 'hash', 'root_id']) then
          return new;
        end if;
        if tg_op = 'DELETE' and current_setting('audit.retention', true) = 'on' then
          return old;
        end if;
        raise exception using errcode = 'AU001',
          message = format('%s is an audit log: its rows are never changed or deleted, but by sealing and retention (%s refused)', tg_table_name, lower(tg_op));
      end $$;
      create trigger audit_entry_append_only before update or delete on audit_entry
        for each row execute function audit_entry_guard();
      create trigger audit_entry_no_truncate before truncate on audit_entry
        for each statement execute function audit_entry_guard();

      create function audit_anchor_guard() returns trigger language plpgsql as $$
      begin
        if current_setting('audit.retention', true) = 'on' then
          return case when tg_op = 'DELETE' then old else new end;
        end if;
        raise exception using errcode = 'AU001',
          message = format('%s is written by retention alone (%s refused)', tg_table_name, lower(tg_op));
      end $$;
      create trigger audit_anchor_by_retention before insert or update or delete on audit_anchor
        for each row execute function audit_anchor_guard();
      create trigger audit_anchor_no_truncate before truncate on audit_anchor
        for each statement execute function audit_anchor_guard();

      -- Retention: each tree's oldest sealed entries that all occurred before the cutoff (a prefix of
      -- its chain, so what remains is whole), and the tree's anchor moved to the last one deleted.
      create function audit_entry_retain(cutoff timestamptz) returns bigint language plpgsql as $$
      declare
        removed bigint;
      begin
        perform set_config('audit.retention', 'on', true);
        with old_roots as (
          select distinct root_id from audit_entry where occurred_at < cutoff and position is not null
        ), bound as (
          select r.root_id, (select min(b.position) from audit_entry b
                             where b.root_id = r.root_id and b.position is not null and b.occurred_at >= cutoff) as first_kept
          from old_roots r
        ), gone as (
          delete from audit_entry a using bound
          where a.root_id = bound.root_id and a.position is not null and (bound.first_kept is null or a.position < bound.first_kept)
          returning a.root_id, a.position, a.hash
        ), last_gone as (
          select distinct on (root_id) root_id, position, hash from gone order by root_id, position desc
        ), anchored as (
          insert into audit_anchor as x (root_id, position, hash) select root_id, position, hash from last_gone
          on conflict (root_id) do update set position = excluded.position, hash = excluded.hash where excluded.position > x.position
        )
        select count(*) into removed from gone;
        perform set_config('audit.retention', '', true);
        return removed;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop function audit_entry_retain(timestamptz);
      drop table audit_anchor;
      drop table audit_entry;
      drop function audit_anchor_guard();
      drop function audit_entry_guard();
    `);
  }
}
