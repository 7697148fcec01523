import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/database/database.js';
import { accessPredicate } from '../../src/auth/access-rule.js';
import type { Principal } from '../../src/auth/principal.js';
import { accessibleEventsPage, EVENT_SELECT, subtreeEventsPage } from '../../src/events/event.reads.js';
import { graphql, request } from '../support/http.js';
import { insertOrganizations } from '../support/rows.js';
import { useTestService, type TestServiceHandle } from '../support/test-service.js';

/**
 * `GET /api/v1/events` and `events` without `organizationId` (contract section 12, "Reads that
 * stay bounded"): built from the caller's entry points, the answers are those of the access
 * rule applied to every event in order (the statement before issue 22, kept here as the
 * oracle), and the plan reads the caller's trees only, however many events other trees hold.
 */

/** The list as it was computed before: every event in order, each checked by the access rule. */
async function everyAccessibleEvent(service: TestServiceHandle, principal: Principal, types: string[] | null) {
  const access = accessPredicate('o', principal);
  return service.sql(
    `select ${EVENT_SELECT} from event e join organization o on o.id = e.organization_id
     where ${access.sql.replace('?', '$1').replace('?', '$2')} and ($3::text[] is null or e.type = any($3::text[]))
     order by e.seq`,
    [...access.params, types],
  );
}

/** Inserts events in the order given (the trigger lists each under its path, as a create does). */
async function insertEvents(service: TestServiceHandle, events: Array<{ organizationId: string; type: string }>) {
  await service.sql(
    `insert into event (id, type, organization_id, data)
     select gen_random_uuid(), given.type, given.organization_id, jsonb_build_object('object', jsonb_build_object('n', given.ordinal))
     from unnest($1::text[], $2::uuid[]) with ordinality as given (type, organization_id, ordinal) order by given.ordinal`,
    [events.map((event) => event.type), events.map((event) => event.organizationId)],
  );
}

const TYPES = ['organization.created', 'policy.created'];

describe('the events list without organizationId', () => {
  const service = useTestService();
  const org: Record<string, string> = {};

  beforeAll(async () => {
    // carol's claim `claim` sits under someone else's `top`; she created `inClaim` inside it, the
    // root `own` (with `ownChild`, made by dave), and `grafted` under a stranger's root, with
    // `graftedChild`. The stranger's `strangerChild` and the `platform` root are not hers.
    [org.top, org.platform, org.stranger] = await insertOrganizations(service, [
      { ownerSub: 'top-owner' },
      { ownerSub: 'platform' },
      { ownerSub: 'stranger' },
    ]);
    [org.claim] = await insertOrganizations(service, [{ parentId: org.top, ownerSub: 'admin' }]);
    [org.inClaim, org.own] = await insertOrganizations(service, [{ parentId: org.claim, ownerSub: 'carol' }, { ownerSub: 'carol' }]);
    [org.ownChild, org.grafted, org.strangerChild] = await insertOrganizations(service, [
      { parentId: org.own, ownerSub: 'dave' },
      { parentId: org.stranger, ownerSub: 'carol' },
      { parentId: org.stranger, ownerSub: 'stranger' },
    ]);
    [org.graftedChild] = await insertOrganizations(service, [{ parentId: org.grafted, ownerSub: 'carol' }]);
    // The platform's events first, so a walk in event order meets them before any of carol's;
    // then events interleaved in time over every organization, types alternating.
    await insertEvents(
      service,
      Array.from({ length: 3000 }, (_, i) => ({ organizationId: org.platform, type: TYPES[i % 2] })),
    );
    const everywhere = Object.values(org);
    await insertEvents(
      service,
      Array.from({ length: 5 * everywhere.length }, (_, i) => ({
        organizationId: everywhere[i % everywhere.length],
        type: TYPES[Math.floor(i / everywhere.length) % 2 === 0 ? i % 2 : (i + 1) % 2],
      })),
    );
    await service.sql('analyze organization');
    await service.sql('analyze event');
    await service.sql('analyze event_ancestor');
  });

  const callers: Array<[string, () => Principal]> = [
    ['carol with her org claim (three entry points)', () => ({ sub: 'carol', org: org.claim })],
    ['carol without an org claim (three other entry points)', () => ({ sub: 'carol', org: null })],
    ['carol with a claim inside her own tree', () => ({ sub: 'carol', org: org.ownChild })],
    ["the claim organization's creator with its claim (one entry point, found twice)", () => ({ sub: 'admin', org: org.claim })],
    ["the stranger (its tree holds carol's graft)", () => ({ sub: 'stranger', org: null })],
    ['a fresh sub', () => ({ sub: 'nobody', org: null })],
    ['a claim of no organization', () => ({ sub: 'nobody', org: '00000000-0000-4000-8000-000000000000' })],
  ];

  it.each(callers)('REST pages of 4 give %s the same events as the access rule over every event', async (_name, caller) => {
    const principal = caller();
    const token = await service.token(principal.org ? { sub: principal.sub, org: principal.org } : { sub: principal.sub });
    for (const types of [null, ['policy.created']]) {
      const expected = await everyAccessibleEvent(service, principal, types);
      const listed: unknown[] = [];
      let cursor: string | null = null;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(50);
        const query = new URLSearchParams({ limit: '4', ...(types ? { type: types[0] } : {}), ...(cursor ? { after: cursor } : {}) });
        const response = await request(service.url, 'GET', `/api/v1/events?${query}`, { token });
        expect(response.status, response.text).toBe(200);
        expect(response.body.data.length).toBeLessThanOrEqual(4);
        // Each item with its deliveries (none here: no endpoints), besides what the oracle reads.
        for (const { deliveries, ...event } of response.body.data) {
          expect(deliveries).toEqual([]);
          listed.push(event);
        }
        if (!response.body.hasMore) break;
        expect(response.body.data).toHaveLength(4);
        cursor = response.body.nextCursor;
      }
      expect(listed).toEqual(expected);
    }
  });

  it.each(callers)('GraphQL pages of 3 give %s the same events as the access rule over every event', async (_name, caller) => {
    const principal = caller();
    const token = await service.token(principal.org ? { sub: principal.sub, org: principal.org } : { sub: principal.sub });
    const expected = await everyAccessibleEvent(service, principal, ['organization.created']);
    const listed: unknown[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(50);
      const response = await graphql(
        service.url,
        `query ($after: String) { events(first: 3, after: $after, types: ["organization.created"]) {
          edges { node { id type apiVersion createdAt organizationId actor { sub } data } } pageInfo { hasNextPage endCursor } } }`,
        { after },
        token,
      );
      expect(response.body.errors, response.text).toBeUndefined();
      const { edges, pageInfo } = response.body.data.events;
      listed.push(...edges.map((edge: { node: unknown }) => edge.node));
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(listed).toEqual(expected);
    if (principal.sub === 'carol') expect(listed.length).toBeGreaterThan(6);
  });
});

describe('the plan of the events list without organizationId', () => {
  const service = useTestService();
  // A gateway of its own on the service's database: only the reads' statements pass through it.
  let database: Database;
  const statements: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const PLATFORM_EVENTS = 20_000;
  const org: Record<string, string> = {};
  let callerEvents = 0;

  beforeAll(async () => {
    // Another tenant's tree with many events, written before and after the caller's few.
    const [platform] = await insertOrganizations(service, [{ ownerSub: 'platform' }]);
    const platformChildren = await insertOrganizations(
      service,
      Array.from({ length: 50 }, () => ({ parentId: platform, ownerSub: 'platform' })),
    );
    [org.claim, org.own] = await insertOrganizations(service, [{ ownerSub: 'admin' }, { ownerSub: 'carol' }]);
    [org.grafted] = await insertOrganizations(service, [{ parentId: platform, ownerSub: 'carol' }]);
    const platformEvents = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ organizationId: platformChildren[i % 50], type: TYPES[i % 2] }));
    await insertEvents(service, platformEvents(PLATFORM_EVENTS / 2));
    const mine = [org.claim, org.own, org.grafted].flatMap((organizationId) =>
      Array.from({ length: 10 }, (_, i) => ({ organizationId, type: TYPES[i % 2] })),
    );
    callerEvents = mine.length;
    await insertEvents(service, mine);
    await insertEvents(service, platformEvents(PLATFORM_EVENTS / 2));
    for (const table of ['organization', 'event', 'event_ancestor']) await service.sql(`analyze ${table}`);
    database = new Database({ url: service.databaseUrl });
    database.onStatement(({ text, values }) => statements.push({ sql: text, bindings: values }));
  });
  afterAll(() => database?.close());

  /** Rows of `event` and `event_ancestor` each scan produced or threw away, over all its loops. */
  function eventRowsExamined(node: Record<string, any>): number {
    const scanned =
      /Scan/.test(node['Node Type']) && /^event/.test(node['Relation Name'] ?? '')
        ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
          node['Actual Loops']
        : 0;
    return scanned + (node.Plans ?? []).reduce((sum: number, child: Record<string, any>) => sum + eventRowsExamined(child), 0);
  }

  /** The plan of a statement the service sent, run as `mode` plans it: the event rows it examined. */
  async function examinedBy(sent: { sql: string; bindings: readonly unknown[] }, mode: string): Promise<number> {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      await client.query(`set plan_cache_mode = ${mode}`);
      await client.query(`prepare events_page as ${sent.sql}`);
      const values = sent.bindings.map((value) => (value === null ? 'null' : client.escapeLiteral(String(value))));
      const result = await client.query(`explain (analyze, buffers, format json) execute events_page(${values.join(', ')})`);
      return eventRowsExamined(result.rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.end();
    }
  }

  // The service's statements are prepared by name, so after five runs PostgreSQL may use a
  // generic plan: both kinds must stay bounded.
  const MODES = ['force_custom_plan', 'force_generic_plan'];

  it.each(MODES)("reads the caller's events, not the platform's (%s)", async (mode) => {
    const pageSize = 20;
    const principal = { sub: 'carol', org: org.claim };
    // The last page: a walk along every event would have to pass all the platform's to end it.
    statements.length = 0;
    const first = await accessibleEventsPage(database, principal, null, pageSize, '0');
    const last = await accessibleEventsPage(database, principal, null, pageSize, first.items.at(-1)!.seq);
    expect(first.items.length + last.items.length).toBe(callerEvents);
    expect(last.hasNextPage).toBe(false);
    // At most a page per entry point from event_ancestor, each checked in event, and the page
    // itself: bounded by the caller's own events and the page size, whatever the 20,000
    // platform events. (The organization table is too small here for its plan to mean much.)
    const examined = await examinedBy(statements.at(-1)!, mode);
    expect(examined, 'rows of event and event_ancestor examined').toBeLessThanOrEqual(2 * callerEvents + pageSize + 1);
  });

  it.each(MODES)("reads one subtree's events with organizationId, not the platform's (%s)", async (mode) => {
    const principal = { sub: 'carol', org: null };
    statements.length = 0;
    const first = await subtreeEventsPage(database, principal, org.own, null, 5, '0');
    const last = await subtreeEventsPage(database, principal, org.own, null, 5, first!.items.at(-1)!.seq);
    expect(last!.items).toHaveLength(5);
    expect(last!.hasNextPage).toBe(false);
    const examined = await examinedBy(statements.at(-1)!, mode);
    expect(examined, 'rows of event and event_ancestor examined').toBeLessThanOrEqual(2 * 10);
  });
});
