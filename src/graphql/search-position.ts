import { ArgsType, Field, Int } from 'type-graphql';
import { badUserInput, type FieldError } from '../errors/errors.js';
import { EXACT_RANK } from '../database/trigram.js';
import { MAX_PAGE_SIZE } from './connection.js';

/** A search's query (contract section 23): 2 to 100 characters once trimmed. */
export const QUERY_LENGTH = { min: 2, max: 100 } as const;

/** A search's arguments, `q` first (contract section 23's signatures), then the page's. */
@ArgsType()
export class SearchArgs {
  @Field(() => String, {
    description: `What to look for, ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters: typos are forgiven (trigram similarity)`,
  })
  q!: string;

  @Field(() => Int, { defaultValue: 20, description: `Page size, 1 to ${MAX_PAGE_SIZE}` })
  first!: number;

  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page of the same search' })
  after?: string | null;
}

/** Where a search continues: after this rank and, within it, before this `seq` (newest first). */
export interface SearchPosition {
  rank: number;
  seq: string;
}

/** Before every result: a rank above any (EXACT_RANK is the highest). */
export const SEARCH_START: SearchPosition = { rank: EXACT_RANK + 1, seq: '0' };

/**
 * A search's cursor holds its whole sort order (contract section 23): the rank, then the row's
 * `seq` (unique, so it is also the tie-break an id would be), tagged with what it pages. Rows
 * written since rank where they rank and never move those already there, so the next page
 * neither repeats nor skips one that existed at the first.
 */
export function encodeSearchPosition(position: SearchPosition): string {
  return `${position.rank}:${position.seq}`;
}

/** Checks a search's arguments; returns the query as given (trimmed), the page size and where to continue. */
export function searchPosition(kind: string, args: SearchArgs): { q: string; first: number; after: SearchPosition } {
  const errors: FieldError[] = [];
  const q = typeof args.q === 'string' ? args.q.trim() : '';
  const length = [...q].length;
  if (length < QUERY_LENGTH.min || length > QUERY_LENGTH.max) {
    errors.push({ path: 'q', message: `must be ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters (not counting spaces around it)` });
  } else if (q.includes('\u0000')) errors.push({ path: 'q', message: 'must not contain NUL characters' });
  if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE_SIZE) {
    errors.push({ path: 'first', message: `must be from 1 to ${MAX_PAGE_SIZE}` });
  }
  let after = SEARCH_START;
  if (args.after != null) {
    // A rank from 0 to EXACT_RANK and a position of up to 18 digits (every one fits a bigint).
    const match = new RegExp(`^${kind}:(0|[1-9][0-9]{0,3}):([1-9][0-9]{0,17})$`).exec(
      Buffer.from(args.after, 'base64url').toString('latin1'),
    );
    if (match && Number(match[1]) <= EXACT_RANK) after = { rank: Number(match[1]), seq: match[2] };
    else errors.push({ path: 'after', message: 'is not a cursor of this search' });
  }
  if (errors.length > 0) throw badUserInput(errors);
  return { q, first: args.first, after };
}
