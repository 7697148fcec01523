import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAccessibleOrganization } from '../auth/access-rule.js';
import type { RequestContext } from '../graphql/context.js';
import { badUserInput, conflict, notFound } from '../graphql/errors.js';
import { Organization } from '../organizations/organization.entity.js';
import { Charge } from './charge.entity.js';
import { CoveragePlan, snapshotOf } from './coverage-plan.entity.js';
import { premiumSchedule } from './premium-schedule.js';
import type { CreatePolicyInput } from './policy.input.js';
import { Policy } from './policy.entity.js';
import { policyViewOf, type PolicyView } from './policy.view.js';

/** A server-assigned number can lose a race with a client choosing the same one; try again. */
const NUMBER_ATTEMPTS = 5;

/**
 * Creates a policy for `organizationId`, else the caller's `org`, with its coverage snapshot
 * and premium schedule, in one transaction. `cvc` has been validated and is dropped here.
 */
export async function createPolicy(ctx: RequestContext, input: CreatePolicyInput): Promise<PolicyView> {
  const principal = ctx.principal!;
  const organizationId = input.organizationId ?? principal.org;
  if (!organizationId) {
    throw badUserInput([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
  }
  const organization = await findAccessibleOrganization(ctx.em, principal, organizationId);
  if (!organization) {
    throw notFound(input.organizationId ? 'Organization not found.' : "The token's organization was not found.");
  }
  const plan = await ctx.em.findOne(CoveragePlan, { slug: input.coverageSlug });
  if (!plan) {
    throw badUserInput([{ path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' }]);
  }
  const coverage = snapshotOf(plan);
  const schedule = premiumSchedule({
    effectiveDate: input.effectiveDate,
    expirationDate: input.expirationDate,
    monthlyPremium: coverage.monthlyPremium,
    currency: coverage.currency,
  });

  for (let attempt = 1; ; attempt++) {
    try {
      const policy = await ctx.em.transactional(async (em) => {
        const number = input.number ?? (await nextPolicyNumber(em));
        const policy = em.create(Policy, {
          number,
          internalID: input.internalID ?? null,
          organization: em.getReference(Organization, organization.id),
          ownerFirstname: input.ownerFirstname,
          ownerLastname: input.ownerLastname,
          ownerDOB: input.ownerDOB ?? null,
          petName: input.petName,
          petDOB: input.petDOB ?? null,
          effectiveDate: input.effectiveDate,
          expirationDate: input.expirationDate,
          coverageSlug: coverage.slug,
          coverage,
          createdBySub: principal.sub,
        });
        for (const [sequence, charge] of schedule.entries()) em.create(Charge, { policy, sequence, ...charge });
        return policy;
      });
      return policyViewOf(policy, organization);
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || !isNumberTaken(error)) throw error;
      if (input.number != null) throw conflict(`A policy with number ${input.number} already exists.`);
      if (attempt === NUMBER_ATTEMPTS) throw error;
    }
  }
}

/** The next free number of the policy sequence (a SQL function skips numbers clients took). */
async function nextPolicyNumber(em: EntityManager): Promise<number> {
  const [row] = await em.execute<Array<{ number: string }>>('select next_policy_number() as number');
  return Number(row.number);
}

function isNumberTaken(error: UniqueConstraintViolationException): boolean {
  return (error as unknown as { constraint?: string }).constraint === 'policy_number_unique';
}
