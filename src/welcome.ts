import { developmentTokenSeconds, mintToken } from './auth/token-minter.js';
import { verificationKeys } from './auth/verification-keys.js';
import { usesDevelopmentSecret, type Config } from './config.js';

/** The address to open for a listening port: a wildcard host is reached on loopback. */
export function serviceUrl(host: string, port: number): string {
  return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
}

/**
 * Outside production, once per start (by the process alone, or by the cluster primary): where
 * the service is, its developer pages, and a ready-to-paste token with the development secret.
 */
export async function printWelcome(config: Config, url: string): Promise<void> {
  const lines = [``, `Organization and Policy service: ${url}`];
  if (config.developerPages) {
    lines.push(
      `  Developer pages: ${url}/`,
      `  GraphiQL (works offline): ${url}/graphiql`,
      `  GraphQL and Apollo Sandbox: ${url}/graphql`,
      `  REST reference: ${url}/api/v1/docs`,
    );
  } else {
    lines.push(`  GraphQL: ${url}/graphql`, `  REST: ${url}/api/v1/... (OpenAPI: ${url}/api/v1/openapi.json)`);
  }
  const { secret, issuer, audience } = verificationKeys(config);
  if (usesDevelopmentSecret(config) && secret) {
    const expiresIn = developmentTokenSeconds(config.jwt.maxLifetimeSeconds);
    const token = await mintToken(secret, { sub: 'dev', expiresIn, issuer, audience });
    lines.push(
      `  Development token (sub "dev", valid ${lifetime(expiresIn)}; more with TOKEN=$(npm run -s token -- --sub alice --org <id>)):`,
      ``,
      `export TOKEN=${token}`,
      ``,
    );
  }
  console.log(lines.join('\n'));
}

/** A lifetime as the banner says it: `24 h`, or in minutes or seconds when shorter. */
function lifetime(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
