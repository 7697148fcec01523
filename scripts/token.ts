import { parseArgs } from 'node:util';
import { mintToken } from '../src/auth/token-minter.js';
import { verificationKeys } from '../src/auth/verification-keys.js';
import { loadConfig } from '../src/config.js';

/**
 * `npm run token -- --sub alice --org <orgId> [--expires-in 3600]`: a development token signed
 * with JWT_SECRET or the development secret, with the configured issuer and audience. The
 * token is alone on the last line of output.
 */
const { values } = parseArgs({
  options: {
    sub: { type: 'string', default: 'dev' },
    org: { type: 'string' },
    'expires-in': { type: 'string', default: '3600' },
  },
});
const config = loadConfig();
const { secret, issuer, audience } = verificationKeys(config);
if (!secret) {
  console.error('npm run token signs with JWT_SECRET or the development secret; neither is available here.');
  process.exit(1);
}
const expiresIn = Number(values['expires-in']);
if (!Number.isInteger(expiresIn) || expiresIn <= 0 || expiresIn > config.jwt.maxLifetimeSeconds) {
  // The service refuses tokens that live longer than JWT_MAX_LIFETIME_SECONDS.
  console.error(`--expires-in must be a number of seconds from 1 to ${config.jwt.maxLifetimeSeconds} (JWT_MAX_LIFETIME_SECONDS)`);
  process.exit(1);
}
console.log(await mintToken(secret, { sub: values.sub!, org: values.org, expiresIn, issuer, audience }));
