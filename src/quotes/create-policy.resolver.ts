import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { createPolicy } from '../policies/create-policy.js';
import { Policy } from '../policies/policy.entity.js';
import { CreatePolicyInput, type NewPolicyInput } from '../policies/policy.input.js';
import type { PolicyRead } from '../policies/policy.reads.js';
import { ledgerScope } from '../policies/ledger/ledger-scope.js';
import { issueQuote } from './issue-quote.js';

/**
 * `createPolicy`: a new policy, or (with `quoteId`) a quote issued. It sits with quotes because
 * issuing needs both, and quotes depend on policies, never the reverse (the layers test forbids a
 * loop between folders).
 */
@Resolver(() => Policy)
export class CreatePolicyResolver {
  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'policy' })
  @Mutation(() => Policy, {
    description:
      'Creates a policy with its coverage snapshot and premium schedule, all or nothing; with quoteId, issues that quote at its quoted price',
  })
  createPolicy(
    @Arg('input', () => CreatePolicyInput) input: CreatePolicyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    const scope = ledgerScope(ctx, principal);
    // The input's rules have checked the body: without quoteId its required fields are there.
    return input.quoteId != null ? issueQuote(scope, input.quoteId, input) : createPolicy(scope, input as NewPolicyInput);
  }
}
