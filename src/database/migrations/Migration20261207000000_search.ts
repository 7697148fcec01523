import { Migration } from '@mikro-orm/migrations';

/** pg_trgm for the similarities and their GIN operator classes; btree_gin to index a uuid and a boolean beside trigrams. */
const EXTENSIONS = `
      create extension if not exists pg_trgm;
      create extension if not exists btree_gin;
`;

/** pg_trgm's similarity functions at their real price. */
const PRICED_SIMILARITY = `
      -- pg_trgm declares its similarity functions as cheap as an integer comparison (COST 1),
      -- while one takes microseconds: the planner then prefers reading a whole dictionary of
      -- 30,000 texts (200 ms) to its GIN index (under 1 ms). Their real price, as PostGIS gives
      -- its own. Where the extension belongs to another role (a managed server's), the
      -- migration says so and goes on: docs/decisions.md, "Search and filters".
      do $$
      begin
        alter function similarity_op(text, text) cost 100;
        alter function word_similarity_op(text, text) cost 100;
        alter function word_similarity_commutator_op(text, text) cost 100;
        alter function strict_word_similarity_op(text, text) cost 100;
        alter function strict_word_similarity_commutator_op(text, text) cost 100;
        alter function similarity(text, text) cost 100;
        alter function word_similarity(text, text) cost 100;
        alter function strict_word_similarity(text, text) cost 100;
      exception when insufficient_privilege then
        raise warning 'pg_trgm''s functions belong to another role: ask it to run ALTER FUNCTION ... COST 100 on them (docs/decisions.md, "Search and filters")';
      end $$;
`;

/** The organizations' search index, and the entry points' own (`owner_top`). */
const ORGANIZATION_SEARCH = `
      create index organization_search_index on organization using gin ((path[1]), legal_name gin_trgm_ops);

      -- The organizations that can be entry points by their creator's sub: those whose parent that
      -- sub did not create, nor any ancestor of it (or that have none). Orgs never move nor change
      -- owner, so it is fixed at insert. A search finds the caller's entry points from this index,
      -- not from every organization its sub created (in a tree one sub made, all of them).
      alter table organization add column owner_top boolean not null default false;
      update organization o set owner_top = o.parent_id is null
        or not exists (select 1 from organization p where p.id = o.parent_id and o.owner_sub = any (p.owner_subs));
      create function organization_set_owner_top() returns trigger language plpgsql as $$
      begin
        new.owner_top := new.parent_id is null
          or not exists (select 1 from organization p where p.id = new.parent_id and new.owner_sub = any (p.owner_subs));
        return new;
      end $$;
      create trigger organization_owner_top before insert on organization for each row execute function organization_set_owner_top();
      create index organization_owner_top_index on organization (owner_sub, seq) where owner_top;
`;

/** The policies' dictionary: its texts, each per tree, and which policies carry each. */
const POLICY_TEXTS = `
      -- How a text is kept: lower case, surrounding spaces trimmed, inner runs of spaces as one.
      create function search_text(value text) returns text language sql immutable parallel safe
        return lower(btrim(regexp_replace(value, '\\s+', ' ', 'g')));

      -- A policy's texts: every word of its owner's names, its pet's name and its internalID, and
      -- each of those of more than one word whole, the owner's as "first last".
      create function policy_search_texts(first text, last text, pet text, internal text) returns text[]
        language sql immutable parallel safe
        return array(select distinct t from (
          select unnest(string_to_array(search_text(v), ' ')) from unnest(array[first, last, pet, internal]) as v
          union all select search_text(first || ' ' || last)
          union all select search_text(pet)
          union all select search_text(internal)
        ) as texts(t) where t <> '' order by t);

      create table policy_search_term (
        id bigint generated always as identity primary key,
        root_id uuid not null,
        term text not null,
        -- One word: what a one-word query is compared with; a query of several words meets the texts of several.
        single boolean generated always as (position(' ' in term) = 0) stored,
        constraint policy_search_term_unique unique (root_id, term)
      );
      create index policy_search_term_trigram_index on policy_search_term using gin (root_id, single, term gin_trgm_ops);

      create table policy_search_posting (
        term_id bigint not null references policy_search_term (id),
        policy_seq bigint not null,
        constraint policy_search_posting_pkey primary key (term_id, policy_seq)
      );
      create index policy_search_posting_policy_index on policy_search_posting (policy_seq, term_id);
`;

/** What keeps the dictionary: the triggers on policy, policy_state and a delete. */
const POLICY_TEXT_TRIGGERS = `
      -- A policy's texts: each kept once per tree (in one order, so that concurrent inserts wait
      -- for each other's new texts without a deadlock), and listed for the policy.
      create function policy_search_add(root uuid, seq bigint, texts text[]) returns void language sql as $$
        insert into policy_search_term (root_id, term) select root, t from unnest(texts) as t order by t on conflict do nothing;
        insert into policy_search_posting (term_id, policy_seq)
          select s.id, seq from policy_search_term s where s.root_id = root and s.term = any(texts) on conflict do nothing;
      $$;

      create function policy_search_on_insert() returns trigger language plpgsql as $$
      begin
        perform policy_search_add((select o.path[1] from organization o where o.id = new.organization_id), new.seq,
          policy_search_texts(new.owner_firstname, new.owner_lastname, new.pet_name, new.internal_id));
        return null;
      end $$;
      create trigger policy_search_terms after insert on policy for each row execute function policy_search_on_insert();

      -- The names a change sets (a state after the first: the first holds the policy's own).
      create function policy_search_on_state() returns trigger language plpgsql as $$
      begin
        perform policy_search_add(o.path[1], p.seq,
          policy_search_texts(new.fields ->> 'ownerFirstname', new.fields ->> 'ownerLastname', new.fields ->> 'petName', null))
        from policy p join organization o on o.id = p.organization_id where p.id = new.policy_id;
        return null;
      end $$;
      create trigger policy_search_changed_terms after insert on policy_state
        for each row when (new.version > 1) execute function policy_search_on_state();

      create function policy_search_on_delete() returns trigger language plpgsql as $$
      begin
        delete from policy_search_posting s using removed r where s.policy_seq = r.seq;
        return null;
      end $$;
      create trigger policy_search_terms_removed after delete on policy
        referencing old table as removed for each statement execute function policy_search_on_delete();
`;

/** The dictionary of the policies written before this migration. */
const BACKFILL = `
      -- The policies already written, with every name their states carry.
      create temporary table policy_search_backfill as
      select o.path[1] as root_id, p.seq, t.term
      from policy p join organization o on o.id = p.organization_id
        cross join lateral (
          select unnest(policy_search_texts(p.owner_firstname, p.owner_lastname, p.pet_name, p.internal_id))
          union
          select unnest(policy_search_texts(s.fields ->> 'ownerFirstname', s.fields ->> 'ownerLastname', s.fields ->> 'petName', null))
          from policy_state s where s.policy_id = p.id and s.version > 1
        ) as t(term);
      insert into policy_search_term (root_id, term) select distinct root_id, term from policy_search_backfill;
      insert into policy_search_posting (term_id, policy_seq)
      select s.id, b.seq from policy_search_backfill b join policy_search_term s on s.root_id = b.root_id and s.term = b.term;
      drop table policy_search_backfill;
`;

/**
 * Contract section 23 (issue 42): typo-tolerant search, by trigram similarity (pg_trgm).
 *
 * Organizations by `legalName`: one GIN index over the root of the row's tree (`path[1]`, by
 * btree_gin) and its legal name's trigrams. A search reads the index entries of its trees' roots
 * beside those of the query's trigrams, so another tenant's organizations are never read; the
 * subtree of an entry point below its root is a check of `path` on the rows found.
 *
 * Policies by owner name, pet name and internalID, through a dictionary: ranking a search means
 * computing the similarity of every candidate, and many policies share a name (the seed's million
 * policies hold 520 distinct words and 28,800 full names), so it is computed once per distinct text,
 * not once per policy:
 * - `policy_search_term`: each distinct text per tree (`root_id`, the root of the policy's
 *   organization): every word of the owner's names, the pet's name and the internalID, and those
 *   of several words whole (the owner's as "first last"). A one-word query is compared with the
 *   one-word texts (`single`), a query of several words with the others: "smyth" meets "smith",
 *   "jon smyth" meets "john smith", and a query of two letters ranks a few hundred words, not every
 *   full name. GIN over (root_id, single, trigrams): a search reads only its own trees' texts
 *   (btree_gin indexes the uuid and the boolean beside the trigrams).
 * - `policy_search_posting`: which policies carry each text, by `policy.seq`; a search walks one
 *   text's policies newest first from its primary key, and (policy_seq, term_id) finds a
 *   policy's other texts.
 * Both are written by triggers: a new policy's texts, and the names a change sets
 * (`policy_state.fields`), so a policy is found by every name it has carried (the names shown
 * are those in effect today). Texts are never removed with their last policy (a policy is only
 * deleted by tests and purges); one left behind costs a candidate that leads nowhere.
 */
export class Migration20261207000000_search extends Migration {
  override async up(): Promise<void> {
    for (const sql of [EXTENSIONS, PRICED_SIMILARITY, ORGANIZATION_SEARCH, POLICY_TEXTS, POLICY_TEXT_TRIGGERS, BACKFILL]) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger policy_search_terms_removed on policy;
      drop function policy_search_on_delete();
      drop trigger policy_search_changed_terms on policy_state;
      drop function policy_search_on_state();
      drop trigger policy_search_terms on policy;
      drop function policy_search_on_insert();
      drop function policy_search_add(uuid, bigint, text[]);
      drop function policy_search_texts(text, text, text, text);
      drop table policy_search_posting;
      drop table policy_search_term;
      drop function search_text(text);
      drop index organization_search_index;
      drop index organization_owner_top_index;
      drop trigger organization_owner_top on organization;
      drop function organization_set_owner_top();
      alter table organization drop column owner_top;
    `);
  }
}
