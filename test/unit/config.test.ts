import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const key = () => randomBytes(32).toString('base64');

describe('loadConfig', () => {
  it('has working defaults for development', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: 'development', port: 4000, host: '0.0.0.0', migrateOnStart: true, logLevel: 'info' });
    expect(config.databaseUrl).toBeUndefined();
  });

  it.each([
    [{ PORT: 'x' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ JWT_PUBLIC_KEY: 'not a pem' }, 'JWT_PUBLIC_KEY'],
    [{ JWKS_URL: 'ftp://idp' }, 'JWKS_URL'],
    [{ DATA_ENCRYPTION_KEY: 'abc' }, 'DATA_ENCRYPTION_KEY'],
    [{ DATA_ENCRYPTION_PREVIOUS_KEYS: `${key()},nope` }, 'DATA_ENCRYPTION_PREVIOUS_KEYS'],
    [{ MIGRATE_ON_START: 'yes' }, 'MIGRATE_ON_START'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key() }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, 'DATA_ENCRYPTION_KEY'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('reads rotated keys', () => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: key(), DATA_ENCRYPTION_PREVIOUS_KEYS: `${key()}, ${key()}` });
    expect(config.previousDataEncryptionKeys).toHaveLength(2);
  });

  it('accepts a production configuration', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), DATA_ENCRYPTION_KEY: key(), DATABASE_URL: 'postgres://u:p@db/x' });
    expect(config.env).toBe('production');
  });
});
