import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { authenticate } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { FieldCipher } from '../sensitive/field-cipher.js';
import type { ServiceError } from './errors.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What every resolver sees; built the same way for GraphQL and REST requests. */
export interface RequestContext {
  requestId: string;
  principal: Principal | null;
  /** The 401 to raise when the operation needs a principal and there is none. */
  authFailure: ServiceError | null;
  /** A fork per request: the global entity manager never serves a request. */
  em: EntityManager;
  /** Batch loaders that apply the access rule; only for requests with a principal. */
  loaders: Loaders;
  cipher: FieldCipher;
  logger: Logger;
}

export interface ContextDependencies {
  orm: MikroORM;
  verifyToken: TokenVerifier;
  cipher: FieldCipher;
  logger: Logger;
}

export interface RequestFacts {
  requestId: string;
  authorization: string | undefined;
}

export type ContextFactory = (request: RequestFacts) => Promise<RequestContext>;

export function createContextFactory(deps: ContextDependencies): ContextFactory {
  return async ({ requestId, authorization }) => {
    const { principal, failure } = await authenticate(authorization, deps.verifyToken);
    // The fork, the loaders and the child logger are made on first use: a simple read needs
    // none of them but the fork's connection, and each costs on the hot path.
    let em: EntityManager | undefined;
    let loaders: Loaders | undefined;
    let logger: Logger | undefined;
    const context: RequestContext = {
      requestId,
      principal,
      authFailure: failure,
      get em() {
        return (em ??= deps.orm.em.fork());
      },
      get loaders() {
        return (loaders ??= createLoaders(context.em, () => {
          if (!principal) throw failure;
          return principal;
        }));
      },
      cipher: deps.cipher,
      get logger() {
        return (logger ??= deps.logger.child({ requestId, sub: principal?.sub }));
      },
    };
    return context;
  };
}
