import 'reflect-metadata';
import { mintToken } from './auth/token-minter.js';
import { verificationKeys } from './auth/verification-keys.js';
import { ConfigError, loadConfig, usesDevelopmentSecret, type Config } from './config.js';
import { createLogger } from './logger.js';
import type { Tracing } from './observability/tracing.js';
import { startService } from './service.js';

/** Start-up: config -> database -> app -> listen; SIGTERM/SIGINT stop it cleanly. */
export async function runService(tracing: Tracing): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, { format: config.logFormat, traceIds: tracing.enabled });
  const service = await startService(config, logger, { traced: tracing.enabled });
  logger.info({ url: service.url }, 'listening');
  if (config.env !== 'production') await printWelcome(config, service.url);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens, do not outlive the 10 s a deploy waits.
    setTimeout(() => process.exit(1), 10_000).unref();
    await service.stop();
    // The spans of the last requests, sent before the process ends.
    await tracing.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
}

async function printWelcome(config: Config, url: string): Promise<void> {
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
  if (usesDevelopmentSecret(config)) {
    const { secret, issuer, audience } = verificationKeys(config);
    const token = await mintToken(secret!, { sub: 'dev', expiresIn: 24 * 3600, issuer, audience });
    lines.push(
      `  Development token (sub "dev", valid 24 h; more with TOKEN=$(npm run -s token -- --sub alice --org <id>)):`,
      ``,
      `export TOKEN=${token}`,
      ``,
    );
  }
  console.log(lines.join('\n'));
}
