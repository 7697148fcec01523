/**
 * Trigram similarity (pg_trgm) as the searches use it (contract section 23; docs/decisions.md,
 * "Search and filters"). A text matches a query when the query is most of a stretch of it
 * (`word_similarity` at least 0.6: "bisc" in "biscuit", "jo" in "john"), or when it is alike to
 * a run of whole words of it (`strict_word_similarity` at least 0.3: "smyth" and "smith", "jon
 * smyth" and "john smith", "harbour" in "Harbor Paws Mutual").
 */
export const WORD_SIMILARITY_THRESHOLD = 0.6;
export const STRICT_WORD_SIMILARITY_THRESHOLD = 0.3;

/**
 * Below this many characters a query is not forgiven typos: a word of two or three letters with
 * one wrong is another word, and its one or two trigrams would make every text sharing one of
 * them a candidate to rank. Such a query matches where it is most of a stretch of a text, or
 * equal to a whole word (a strict threshold of 1).
 */
export const TYPO_MIN_LENGTH = 4;

/**
 * The thresholds, set by the statement itself, for its query (`position.q`): the operators `%>`
 * and `%>>` (the ones a GIN trigram index serves) compare with
 * `pg_trgm.word_similarity_threshold` and `pg_trgm.strict_word_similarity_threshold`. A
 * session-level SET would be wrong here: through a transaction pooler (PgBouncer), sessions are
 * shared, so one client's SET would reach another's statements and ours would leak to theirs.
 * `set_config(..., true)` lasts until the end of the transaction, which for a statement sent on
 * its own is the statement. A CTE materialized once, and read (TRIGRAM_SET) in a one-time filter
 * above every scan that uses the operators, so the executor has set them before such a scan
 * starts, in custom and generic plans alike.
 */
export const TRIGRAM_SETTINGS = `trigram as materialized (
  select set_config('pg_trgm.word_similarity_threshold', '${WORD_SIMILARITY_THRESHOLD}', true) as word,
         set_config('pg_trgm.strict_word_similarity_threshold',
           case when char_length(position.q) < ${TYPO_MIN_LENGTH} then '1' else '${STRICT_WORD_SIMILARITY_THRESHOLD}' end, true) as strict
  from position
)`;
export const TRIGRAM_SET = 'trigram.word is not null and trigram.strict is not null';

/** Whether `text` matches the query (both SQL expressions), by the operators a GIN trigram index serves. */
export const trigramMatch = (text: string, query: string) => `(${text} %> ${query} or ${text} %>> ${query})`;

/**
 * How well `text` matches, 0 to 1,000: the mean of the query's word similarity and the whole
 * texts' similarity, so that among texts holding the query ("jo" in "joe" and in "jonathan") the
 * closer whole ranks first, and a text equal to the query ranks 1,000. An integer, so that a
 * cursor holds it exactly.
 */
export const trigramRank = (query: string, text: string) =>
  `(500 * (word_similarity(${query}, ${text}) + similarity(${query}, ${text})))::int`;

/** Above every similarity: a policy whose number is the query (contract section 23: the exact number first). */
export const EXACT_RANK = 1001;
