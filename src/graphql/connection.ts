import { Field, Int, ObjectType, ArgsType, type ClassType } from 'type-graphql';
import { badUserInput } from '../errors/errors.js';

/** Relay cursor connections (spec section 10): `edges { cursor node }` and the full `pageInfo`. */
@ObjectType('PageInfo', { simpleResolvers: true })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => Boolean, { description: 'Paging forward: true after a cursor (the rows up to it come before), false on the first page' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: "The first edge's cursor; null on an empty page" })
  startCursor!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Pass as `after` for the next page. Usually the last edge's cursor; a status-filtered page may stop short, even empty, with hasNextPage true and this cursor past its last edge. Null on an empty last page",
  })
  endCursor!: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

export function ConnectionType<T extends object>(name: string, node: ClassType<T>) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class EdgeType {
    @Field(() => String, { description: 'Opaque' })
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { simpleResolvers: true })
  class ConnectionClass {
    // The connection field already counts its edges `first` times (query-cost.ts).
    @Field(() => [EdgeType], { complexity: ({ childComplexity }) => 1 + childComplexity })
    edges!: EdgeType[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;
  }
  return ConnectionClass;
}

export const MAX_PAGE_SIZE = 100;

@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 20, description: `Page size, 1 to ${MAX_PAGE_SIZE}` })
  first!: number;

  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page' })
  after?: string | null;
}

/** A cursor is the row's position (its `seq`), tagged with what it pages, in base64url. */
export function encodeCursor(kind: string, seq: string | number): string {
  return Buffer.from(`${kind}:${seq}`).toString('base64url');
}

/** Checks page arguments; returns the position to continue after (0 for the first page). */
export function pagePosition(kind: string, args: PageArgs): { first: number; after: string } {
  const errors = [];
  if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE_SIZE) {
    errors.push({ path: 'first', message: `must be from 1 to ${MAX_PAGE_SIZE}` });
  }
  let after = '0';
  if (args.after != null) {
    // Up to 18 digits: every position fits PostgreSQL's bigint (19 digits may not: a 500 before).
    const match = new RegExp(`^${kind}:([1-9][0-9]{0,17})$`).exec(Buffer.from(args.after, 'base64url').toString('latin1'));
    if (match) after = match[1];
    else errors.push({ path: 'after', message: 'is not a cursor of this connection' });
  }
  if (errors.length > 0) throw badUserInput(errors);
  return { first: args.first, after };
}

/**
 * Rows read with one more than the page size (`limit first + 1`, each with its `seq`) as a
 * page: the first `first`, and whether the extra one shows that more follow.
 */
export function pageOf<T>(
  rows: Array<T & { seq: string | number }>,
  first: number,
): { items: Array<{ node: T; seq: string }>; hasNextPage: boolean } {
  return {
    items: rows.slice(0, first).map(({ seq, ...node }) => ({ node: node as T, seq: String(seq) })),
    hasNextPage: rows.length > first,
  };
}

/** A loaded page as a connection; `after` is the position it continued after ('0' for none). */
export function toConnection<T>(
  kind: string,
  page: { items: Array<{ node: T; seq: string }>; hasNextPage: boolean; endSeq?: string },
  after = '0',
): Connection<T> {
  const edges = page.items.map(({ node, seq }) => ({ cursor: encodeCursor(kind, seq), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: after !== '0',
      startCursor: edges[0]?.cursor ?? null,
      // Past the last edge when a filtered page stopped walking before it was full (graphql/batch.ts, `endSeq`).
      endCursor: page.endSeq !== undefined ? encodeCursor(kind, page.endSeq) : (edges.at(-1)?.cursor ?? null),
    },
  };
}
