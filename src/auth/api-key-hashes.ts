import { apiKeyHasher, newApiKey, parseApiKey, type ApiKeyMode } from './api-key-format.js';

/**
 * The service's API keys as the database knows them: by a keyed hash (api-key-format.ts) under
 * DATA_ENCRYPTION_KEY. A new key is hashed under the current data key; a key is looked up under
 * the current and every previous one (PREVIOUS_DATA_ENCRYPTION_KEYS), so rotating the data key
 * does not lock out the keys made before it.
 */
export class ApiKeyHashes {
  private readonly hashers: ((key: string) => string)[];

  /** `mode`: `live` in production, `test` elsewhere (contract section 20). */
  constructor(
    currentKey: Buffer,
    previousKeys: readonly Buffer[],
    readonly mode: ApiKeyMode,
  ) {
    this.hashers = [currentKey, ...previousKeys].map(apiKeyHasher);
  }

  /** A new key, to show once, with its shown prefix and the hash to store. */
  issue(): { key: string; prefix: string; hash: string } {
    const key = newApiKey(this.mode);
    return { key, prefix: (parseApiKey(key) as { prefix: string }).prefix, hash: this.hashers[0](key) };
  }

  /** The hashes a key may be stored under: the current data key's first. */
  candidates(key: string): string[] {
    return this.hashers.map((hash) => hash(key));
  }
}

/** The service's key hashes from its settings: `live` keys in production (contract section 20). */
export function apiKeyHashesOf(config: { env: string; previousDataEncryptionKeys: readonly Buffer[] }, dataKey: Buffer): ApiKeyHashes {
  return new ApiKeyHashes(dataKey, config.previousDataEncryptionKeys, config.env === 'production' ? 'live' : 'test');
}
