import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';

/**
 * The benchmark's PostGraphile peer (scripts/bench-postgraphile.ts): PostGraphile 4 as a library
 * on node:http, reading the service's tables under row-level security (rls.sql) as the role
 * postgraphile_reader. Environment: DATABASE_URL, JWT_SECRET, PORT.
 * Options: PostGraphile's recommended production set (usage-library, "For Production"), except
 * where a comment says otherwise, and without its @graphile-contrib/pg-simplify-inflector plugin,
 * which only shortens field names (the query in bench-postgraphile.ts uses the default ones).
 */
const { DATABASE_URL, JWT_SECRET, PORT } = process.env;
if (!DATABASE_URL || !JWT_SECRET || !PORT) throw new Error('DATABASE_URL, JWT_SECRET and PORT are required');

// The service's pool: 10 connections, statements and abandoned transactions ended after 10 s
// (src/database/database.ts; the service's default deadline). The production considerations page asks
// for a statement timeout; as connection parameters they cost nothing per request.
const pool = new pg.Pool({
  connectionString: DATABASE_URL,
  max: 10,
  statement_timeout: 10_000,
  idle_in_transaction_session_timeout: 10_000,
});
pool.on('error', () => undefined);

// A KeyObject, made once. Given a string (or a Buffer), jsonwebtoken 9 first tries to parse it as
// a public key, fails, and only then makes a secret key, on every request: ~260 µs a verification
// here, against ~5 µs with a KeyObject. PostGraphile 4.14 refuses a KeyObject itself (it takes a
// string, a Buffer or a function), so the key reaches jsonwebtoken through its key-callback form;
// PostGraphile verifies with `jwtPublicKey || jwtSecret`, and only `jwtPublicKey` is typed to
// take a callback (`jwtSecret` would only matter for signing tokens, which nothing here does).
const key = createSecretKey(Buffer.from(JWT_SECRET));

const middleware = postgraphile(pool, 'public', {
  jwtPublicKey: (_header, callback) => callback(null, key),
  jwtVerifyOptions: {
    algorithms: ['HS256'],
    // The service's tokens carry no `aud`; PostGraphile defaults the audience to 'postgraphile'
    // unless `audience` is given, and null turns the check off (its documented way).
    audience: null,
  },
  // Every request runs as this login-less role (no `role` claim in the tokens), with the claims
  // as `jwt.claims.*` settings that the row-level security policies read.
  pgDefaultRole: 'postgraphile_reader',
  dynamicJson: true, // jsonb (policy.coverage) as JSON, not a JSON string
  setofFunctionsContainNulls: false,
  // Recommended; it prunes what the connecting role cannot reach, and the benchmark connects as
  // the superuser (DATABASE_URL), so every table of `public` is in the schema. Only the three the
  // role may select answer; the others refuse (permission denied). The read is the same either way.
  ignoreRBAC: false,
  // ignoreIndexes stays at its default (true, not on the library page's production list): false
  // drops orderBy SEQUENCE, the second column of charge_sequence_unique, which the read needs.
  legacyRelations: 'omit',
  // The role may only select: the mutations would only ever fail.
  disableDefaultMutations: true,
  graphiql: false,
  watchPg: false,
  disableQueryLog: true,
  // No stack traces, no PostgreSQL error fields (`errcode` is on the recommended list; nothing
  // here reads it).
  showErrorStack: false,
  extendedErrors: [],
  // Recommended on, but the benchmark sends one operation a request, as it does to the service.
  enableQueryBatching: false,
  // No websocket transport: nothing here subscribes.
  subscriptions: false,
  // A schema that cannot be built exits the process (34) instead of retrying: the benchmark
  // then fails at once instead of timing a server that answers nothing.
  retryOnInitFail: false,
});

const server = createServer(middleware);
// Listening only once the schema is built: the first request the benchmark sends is answered.
await middleware.getGraphQLSchema();
server.listen(Number(PORT), '127.0.0.1', () => console.log('postgraphile peer listening'));
process.on('SIGTERM', () =>
  server.close(() =>
    middleware
      .release()
      .then(() => pool.end())
      .then(() => process.exit(0)),
  ),
);
