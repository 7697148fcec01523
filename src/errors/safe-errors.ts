import { ApolloServerErrorCode, unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ERROR_STATUS, isErrorCode, ServiceError, unavailable } from './errors.js';

/**
 * Codes that graphql-js and Apollo raise before execution, and the refusal of a document that is
 * not trusted (GRAPHQL_TRUSTED_DOCUMENTS_ONLY, named as Apollo Router names it); their messages are safe.
 */
const REQUEST_ERROR_CODES = new Set<string>([
  ...Object.values(ApolloServerErrorCode).filter((code) => code !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR),
  'PERSISTED_QUERY_NOT_IN_LIST',
]);

/** Every `extensions.code` an answer can carry: safeError lets no other through (the metrics label these alone). */
export const ANSWERED_CODES: readonly string[] = [...Object.keys(ERROR_STATUS), ...REQUEST_ERROR_CODES];

export type SafeError = GraphQLFormattedError & { extensions: { code: string } };

/**
 * What a client may see of an error, and what the log is told. Expected errors keep their
 * message, code and field list; a lost database becomes UNAVAILABLE (`databaseAway`: counted by
 * the outage log, not logged one by one); anything else becomes a bare INTERNAL_SERVER_ERROR
 * (`unexpected`: the cause goes to the log, never to the client: no stack, no SQL, no values).
 */
export function safeError(error: GraphQLError): { safe: SafeError; unexpected: boolean; databaseAway: boolean } {
  const cause = error.originalError;
  const code = error.extensions?.code;
  // Our own messages are written to be safe; graphql-js and Apollo quote the offending value.
  const message = error instanceof ServiceError ? error.message : withoutValues(error.message);
  const base = { message, locations: error.locations, path: error.path };
  if (!cause || cause instanceof GraphQLError) {
    if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') {
      const { errors } = error.extensions as { errors?: unknown };
      return { safe: { ...base, extensions: errors ? { code, errors } : { code } }, unexpected: false, databaseAway: false };
    }
    if (typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) {
      return { safe: { ...base, extensions: { code } }, unexpected: false, databaseAway: false };
    }
    if (!cause && code === undefined && error.path === undefined) {
      // graphql-js validation and coercion errors carry no code, no cause and no path; an error
      // during execution with none (a null for a non-null field) is the service's fault: a 500.
      return { safe: { ...base, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }, unexpected: false, databaseAway: false };
    }
  }
  if (isDatabaseUnavailable(cause)) {
    const error503 = unavailable();
    return { safe: { ...base, message: error503.message, extensions: { code: 'UNAVAILABLE' } }, unexpected: false, databaseAway: true };
  }
  return {
    safe: {
      message: 'Internal server error.',
      locations: error.locations,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    },
    unexpected: true,
    databaseAway: false,
  };
}

/**
 * graphql-js messages quote the value they reject ("Expected value of type "String", found
 * 4111111111111111", "Variable "$input" got invalid value {...}"): it may be a cvc, a tax id or
 * an account number, so it is cut out.
 */
export function withoutValues(message: string): string {
  return (
    message
      // A name the client chose (an unknown `operationName` of 100 KB) is quoted back at most
      // 100 characters long, as the access line and the metrics keep it.
      .replace(/"([_A-Za-z][_0-9A-Za-z]{99})[_0-9A-Za-z]+"/g, '"$1…"')
      .replace(/^(Variable "\$[^"]+") got invalid value [\s\S]*$/, '$1 has an invalid value.')
      .replace(/^(Expected value of type "[^"]+"), found [\s\S]*$/, '$1, found another value.')
      .replace(/^((?:\w+|Enum "\w+") cannot represent [^:]*): [\s\S]*$/, '$1.')
      // An enum value written into the document: its "did you mean" quotes the value too.
      .replace(/^Value "[\s\S]*" does not exist in "(\w+)" enum\.[\s\S]*$/, 'The value does not exist in "$1" enum.')
  );
}

export function statusOf(code: string): number {
  return isErrorCode(code) ? ERROR_STATUS[code] : 400;
}

/**
 * A database that is away, restarting or too slow, as node-postgres and its pool report it (the
 * gateway, database/database.ts): a system error or SQLSTATE; a connection cut (`Connection
 * terminated ...`); no connection made within the connect timeout (pg's `timeout expired`); or
 * no free connection within the pool's wait (pg-pool's `timeout exceeded when trying to connect`).
 */
export function isDatabaseUnavailable(cause: unknown): boolean {
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  // 57014: a statement cancelled by statement_timeout (the database is too slow right now).
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57014', '57P01', '57P03', '08006', '08001', '08003'].includes(
      typeof code === 'string' ? code : '',
    ) || /^Connection terminated|^timeout expired$|^timeout exceeded when trying to connect$/.test(cause.message)
  );
}

/**
 * Any thrown value as a GraphQL error: an unexpected one becomes a bare internal error with the
 * cause kept for the log (safeError then makes a lost database a 503 and the rest a 500).
 */
export function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const cause = unwrapResolverError(error);
  return new GraphQLError('Internal server error.', { originalError: cause instanceof Error ? cause : undefined });
}
