import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliOptions } from './cli.js';
import { developmentTokenSeconds, mintToken } from '../src/auth/token-minter.js';
import { verificationKeys } from '../src/auth/verification-keys.js';
import { ConfigError, loadConfig, usesDevelopmentSecret } from '../src/config.js';

const USAGE = `Mints a development token, signed as the service on this machine verifies it.

Usage: npm run -s token -- [--sub SUB] [--org ORGANIZATION_ID] [--expires-in SECONDS]

  --sub         the token's subject (default: dev)
  --org         the organization the token acts for (optional)
  --expires-in  lifetime in seconds, up to JWT_MAX_LIFETIME_SECONDS (default: 86400, 24 h,
                as the start-up banner's token; less when JWT_MAX_LIFETIME_SECONDS is)
  --help        this text

Signs with JWT_SECRET, else with the development secret the service keeps in DATA_DIR
(default .data); run it with the same DATA_DIR as the server. Capture it with
  TOKEN=$(npm run -s token -- --sub alice)`;

const cli = cliOptions<{ sub?: string; org?: string; 'expires-in'?: string }>('token', USAGE, {
  sub: { type: 'string', default: 'dev' },
  org: { type: 'string' },
  'expires-in': { type: 'string' },
});
const { values } = cli;
// Annotated, so that TypeScript narrows after a call (a `never` function must be declared so).
const fail: (reason: string) => never = cli.fail;

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
// A development secret this script would have to create is one no server verifies with: a
// token signed with it would be refused. Only one the server already made (its DATA_DIR) is used.
if (!config.jwt.secret && usesDevelopmentSecret(config) && !existsSync(join(config.dataDir, 'dev-jwt-secret'))) {
  fail(
    `no development secret in ${config.dataDir}: start the service once (npm start), or run this with the server's DATA_DIR or JWT_SECRET`,
  );
}
const { secret, issuer, audience } = verificationKeys(config);
if (!secret)
  fail(
    'it signs with JWT_SECRET or the development secret, and neither is available here (JWT_PUBLIC_KEY/JWKS_URL tokens come from your identity provider)',
  );
const expiresIn =
  values['expires-in'] === undefined ? developmentTokenSeconds(config.jwt.maxLifetimeSeconds) : Number(values['expires-in']);
if (!Number.isInteger(expiresIn) || expiresIn <= 0 || expiresIn > config.jwt.maxLifetimeSeconds) {
  // The service refuses tokens that live longer than JWT_MAX_LIFETIME_SECONDS.
  fail(`--expires-in must be a number of seconds from 1 to ${config.jwt.maxLifetimeSeconds} (JWT_MAX_LIFETIME_SECONDS)`);
}
if (values.sub === '') fail('--sub must not be empty');
console.log(await mintToken(secret, { sub: values.sub!, org: values.org, expiresIn, issuer, audience }));
