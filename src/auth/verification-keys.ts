import { usesDevelopmentSecret, type Config } from '../config.js';
import { developmentSecret } from '../development-secrets.js';
import type { VerificationKeys } from './token-verifier.js';

/** The configured keys, or outside production with none configured, the development secret. */
export function verificationKeys(config: Config): VerificationKeys {
  const { jwt } = config;
  const secret = jwt.secret ?? (usesDevelopmentSecret(config) ? developmentSecret(config.dataDir, 'jwt-secret') : undefined);
  return { ...jwt, secret };
}
