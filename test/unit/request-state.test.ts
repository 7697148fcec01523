import { describe, expectTypeOf, it } from 'vitest';
import type { RequestAuthentication } from '../../src/auth/authenticate.js';
import type { Principal } from '../../src/auth/principal.js';
import type { ServiceError } from '../../src/errors/errors.js';
import type { AuthenticatedContext, ContextFactory, RequestFacts } from '../../src/graphql/context.js';
import type {} from '../../src/http/request-locals.js';

// Checked by the compiler (`npm test` runs tsc over test/): these fail to compile, not to run.
describe('typed request state', () => {
  it('an authentication is a principal or a 401, never both or neither', () => {
    const outcome = (authentication: RequestAuthentication) =>
      authentication.principal === null ? authentication.failure : authentication.principal;
    expectTypeOf(outcome).returns.toEqualTypeOf<ServiceError | Principal>();
  });

  it('a context made from an authentication with a principal has one', () => {
    type Authenticated = Extract<RequestAuthentication, { principal: Principal }>;
    expectTypeOf<ReturnType<ContextFactory>['principal']>().toEqualTypeOf<Principal | null>();
    function _make(factory: ContextFactory, facts: RequestFacts<Authenticated>) {
      return factory(facts);
    }
    expectTypeOf<ReturnType<typeof _make>['principal']>().toEqualTypeOf<Principal>();
    expectTypeOf<ReturnType<typeof _make>>().toMatchTypeOf<AuthenticatedContext>();
  });

  it('res.locals is typed (Express.Locals)', () => {
    expectTypeOf<Express.Locals['requestId']>().toEqualTypeOf<string>();
    expectTypeOf<Express.Locals['startedAt']>().toEqualTypeOf<number>();
    expectTypeOf<Express.Locals['authentication']>().toEqualTypeOf<RequestAuthentication>();
    expectTypeOf<Express.Locals['holdSlot']>().toEqualTypeOf<((work: Promise<unknown>) => void) | undefined>();
  });
});
