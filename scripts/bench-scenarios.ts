import type autocannon from 'autocannon';
import { createHash } from 'node:crypto';
import { parse, print } from 'graphql';
import pg from 'pg';
import { POLICY_QUERY } from './bench-support.js';
import type { SeedTree } from './seed.js';
import { FIRST_NAMES, LAST_NAMES, PET_NAMES } from './seed-names.js';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * The requests the benchmark sends (scripts/bench.ts), in one place so that the baseline's
 * check (scripts/bench-check.ts) sends exactly these to the service and the baseline.
 */

export interface BenchRequest {
  method: string;
  path: string;
  token: string;
  body?: string;
}

export type Scenario = [name: string, next: () => BenchRequest];

/** autocannon's request that sends `next()`'s request each time, with its bearer token. */
/**
 * Latency with one request at a time (no queue in front of the server, so what each request
 * costs shows, not connections over throughput): `next`'s requests sent back to back on one
 * kept-alive connection for `seconds`, each timed to its last byte, in µs.
 */
export async function sequentialLatencies(port: number, next: () => BenchRequest, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end) {
      const { method, path, token, body } = next();
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const sent = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          },
          (answer) => answer.resume().once('end', resolve).once('error', reject),
        );
        sent.once('error', reject);
        sent.end(body);
      });
      times.push((performance.now() - started) * 1000);
    }
  } finally {
    agent.destroy();
  }
  return times;
}

/** The `share` quantile (0.5, 0.99) of `values`. */
export function quantile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

export function asRequest(next: () => BenchRequest): autocannon.Request {
  return {
    setupRequest: (request) => {
      const { method, path, token, body } = next();
      return {
        ...request,
        method: method as 'GET',
        path,
        body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      };
    },
  };
}

/** The tree, token, policy number and deepest organization the next request uses. */
export interface Pick {
  tree: SeedTree;
  token: string;
  number: number;
  org: string;
}

/**
 * The trees in turn, each request with its tree's token, the next of its deepest policies and
 * the next of its deepest organizations.
 */
export function roundRobin(trees: SeedTree[], tokens: string[]): () => Pick {
  let turn = 0;
  return () => {
    const index = turn++ % trees.length;
    const tree = trees[index];
    return {
      tree,
      token: tokens[index],
      number: tree.deepPolicies[turn % tree.deepPolicies.length],
      org: tree.deepest[turn % tree.deepest.length],
    };
  };
}

/**
 * Each scenario's request generator over `pick`. `deepParents` is each tree's parent of a
 * deepest organization (a small subtree 19 levels down), by root id.
 */
export function benchScenarios(pick: () => Pick, deepParents: Map<string, string>): Scenario[] {
  return [
    [
      'REST GET policy',
      () => {
        const p = pick();
        return { method: 'GET', path: `/api/v1/policy/${p.number}`, token: p.token };
      },
    ],
    [
      'GraphQL policy query',
      () => {
        const p = pick();
        return {
          method: 'POST',
          path: '/graphql',
          token: p.token,
          body: JSON.stringify({ query: POLICY_QUERY, variables: { number: p.number } }),
        };
      },
    ],
    // A page of 20 of a subtree's policies (spec section 10): the whole tree from its root, and
    // the small subtree of a parent of the deepest level. Seeded with --width 5000, the root's
    // subtree holds 95,001 organizations and about 950,000 policies (docs/benchmark.md).
    [
      'REST GET policy list, root subtree',
      () => {
        const p = pick();
        return { method: 'GET', path: `/api/v1/policy?organizationId=${p.tree.rootId}&includeDescendants=true&limit=20`, token: p.token };
      },
    ],
    [
      'REST GET policy list, deep subtree',
      () => {
        const p = pick();
        return {
          method: 'GET',
          path: `/api/v1/policy?organizationId=${deepParents.get(p.tree.rootId)}&includeDescendants=true&limit=20`,
          token: p.token,
        };
      },
    ],
    [
      'REST GET organization',
      () => {
        const p = pick();
        return { method: 'GET', path: `/api/v1/organization/${p.org}`, token: p.token };
      },
    ],
    [
      'REST POST policy',
      () => {
        const p = pick();
        const body = {
          organizationId: p.org,
          ownerFirstname: 'Bench',
          ownerLastname: 'Mark',
          petName: 'Rex',
          effectiveDate: '2026-03-01',
          expirationDate: '2027-03-01',
          coverageSlug: 'accident-illness-plus',
          cvc: '123',
        };
        return { method: 'POST', path: '/api/v1/policy', token: p.token, body: JSON.stringify(body) };
      },
    ],
  ];
}

/**
 * What a typeahead sends (contract section 23): the names of the seed (seed-names.ts), first
 * names, last names and pets' names in turn, each typed a letter at a time from its second
 * letter to its sixth ("ja", "jam", "jame", "james"; "sm", "smi", ...), as a search box sends a
 * request per keystroke: 1,551 queries, most of them prefixes that match many names.
 */
export const TYPED_QUERIES: readonly string[] = FIRST_NAMES.flatMap((first, i) =>
  [first, LAST_NAMES[i % LAST_NAMES.length], PET_NAMES[i % PET_NAMES.length]].flatMap((name) =>
    Array.from({ length: Math.min(6, name.length) - 1 }, (_, typed) => name.slice(0, typed + 2).toLowerCase()),
  ),
);

/** What a typeahead's dropdown shows of each match (GraphQL: only what it needs). */
export const TYPEAHEAD_QUERY =
  'query Typeahead($q: String!) { viewer { searchPolicies(q: $q, first: 10) { edges { node { number ownerFirstname ownerLastname petName } } } } }';

/**
 * A typeahead over one tree's policies: the next typed query, as a search of everything the
 * caller may access (the tree's owner acting for its root: on the seed of docs/benchmark.md,
 * 950,010 policies), a page of 10 as a dropdown shows, through GraphQL as an admin UI asks it.
 */
export function typeahead(token: string): () => BenchRequest {
  let turn = 0;
  return () => ({
    method: 'POST',
    path: '/graphql',
    token,
    body: JSON.stringify({ query: TYPEAHEAD_QUERY, variables: { q: TYPED_QUERIES[turn++ % TYPED_QUERIES.length] } }),
  });
}

/**
 * The GraphQL read as a trusted document (GRAPHQL_TRUSTED_DOCUMENTS): the manifest holds it as a
 * build would print it, on several lines, so POLICY_QUERY's one-line text is not the manifest's
 * text and still goes through Apollo Server (a request sending a manifest's exact text runs it
 * prepared). The manifest is `{ [id]: text }`.
 */
export function trustedPolicyDocument(): { id: string; text: string } {
  const text = print(parse(POLICY_QUERY));
  return { id: `sha256:${createHash('sha256').update(text).digest('hex')}`, text };
}

/** The GraphQL read by its trusted document's id, over `pick`. */
export function byDocumentId(pick: () => Pick, documentId: string): () => BenchRequest {
  return () => {
    const p = pick();
    return { method: 'POST', path: '/graphql', token: p.token, body: JSON.stringify({ documentId, variables: { number: p.number } }) };
  };
}

/** Each tree's parent of its first deepest organization, by root id. */
export async function deepParentsOf(url: string, trees: SeedTree[]): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; parent_id: string }>(
      'select id, parent_id from organization where id = any($1::uuid[])',
      [trees.map((tree) => tree.deepest[0])],
    );
    const parents = new Map(rows.map((row) => [row.id, row.parent_id]));
    return new Map(trees.map((tree) => [tree.rootId, parents.get(tree.deepest[0])!]));
  } finally {
    await client.end();
  }
}
