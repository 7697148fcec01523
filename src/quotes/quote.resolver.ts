import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { createQuote } from './create-quote.js';
import { Quote } from './quote.entity.js';
import { CreateQuoteInput } from './quote.input.js';
import { findAccessibleQuote, quoteNotFound, type QuoteRead } from './quote.reads.js';

/** Quotes (contract section 14), through the access rule on their organization. */
@Resolver(() => Quote)
export class QuoteResolver {
  @Authorized()
  @Scoped('policies:read')
  @Query(() => Quote, { nullable: true, description: 'A quote of an organization the caller may access; else null and NOT_FOUND' })
  async quote(@Arg('id', () => ID) id: string, @CurrentPrincipal() principal: Principal, @Ctx() ctx: RequestContext): Promise<QuoteRead> {
    const quote = await findAccessibleQuote(ctx.db, principal, id);
    if (!quote) throw quoteNotFound();
    return quote;
  }

  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'quote' })
  @Mutation(() => Quote, {
    description: 'Prices a policy body: the plan and premium schedule issuing it will use, valid for QUOTE_VALID_DAYS',
  })
  createQuote(
    @Arg('input', () => CreateQuoteInput) input: CreateQuoteInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<QuoteRead> {
    const { db, origin, deadline, idempotency, quoteValidDays } = ctx;
    return createQuote({ db, principal, origin, deadline, idempotency, validDays: quoteValidDays }, input);
  }
}
