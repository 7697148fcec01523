import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findTargetOrganization, targetOrganizationId } from '../organizations/organization.reads.js';
import type { Principal } from '../auth/principal.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { badUserInput, conflict } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import type { OrganizationRead } from '../organizations/organization.reads.js';
import { Charge } from './charge.entity.js';
import type { CoverageSnapshot } from './coverage-plan.entity.js';
import { querySql } from '../database/sql.js';
import { premiumSchedule } from './premium-schedule.js';
import { recordEvent } from '../events/record-event.js';
import type { CreatePolicyInput } from './policy.input.js';
import { Policy } from './policy.entity.js';
import { pickColumns } from '../database/read-model.js';
import { CHARGE_COLUMNS, POLICY_COLUMNS, type ChargeRead, type PolicyRead } from './policy.reads.js';
import { inTransaction } from '../database/transaction.js';

/** A server-assigned number can lose a race with a client choosing the same one; try again. */
const NUMBER_ATTEMPTS = 5;

const COVERAGE_SNAPSHOT = `select slug, name, deductible, reimbursement_rate::float8 as "reimbursementRate",
  annual_limit as "annualLimit", monthly_premium as "monthlyPremium", currency from coverage_plan where slug = ?`;

/**
 * Creates a policy for `organizationId`, else the caller's `org`, with its coverage snapshot
 * and premium schedule, in one transaction. `cvc` has been validated and is dropped here.
 */
export interface CreatePolicyScope {
  em: EntityManager;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: the create marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

export async function createPolicy(scope: CreatePolicyScope, input: CreatePolicyInput): Promise<PolicyRead> {
  const { principal } = scope;
  const organizationId = targetOrganizationId(input.organizationId, principal);
  const organization = await findTargetOrganization(scope.em, principal, organizationId, input.organizationId != null);
  // The plan as it is now, copied into the policy so later catalog changes never rewrite it.
  const [coverage] = await querySql<CoverageSnapshot>(scope.em, COVERAGE_SNAPSHOT, [input.coverageSlug]);
  if (!coverage) {
    throw badUserInput([{ path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' }]);
  }
  const schedule = premiumSchedule({
    effectiveDate: input.effectiveDate,
    expirationDate: input.expirationDate,
    monthlyPremium: coverage.monthlyPremium,
    currency: coverage.currency,
  });

  for (let attempt = 1; ; attempt++) {
    // Past the request's deadline (its 503 has gone), no write starts.
    scope.deadline.assertOpen();
    try {
      // Inserted through the entity metadata without the unit of work: nothing here is read
      // back or changed later, and change tracking of 13 entities was most of a create's cost.
      const view = await withQuotas(() => inTransaction(scope.em, async (em) => {
        const number = input.number ?? (await nextPolicyNumber(em));
        const policy = {
          id: randomUUID(),
          number,
          internalID: input.internalID ?? null,
          organization: organization.id,
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
        };
        const charges = schedule.map((charge, sequence) => ({ id: randomUUID(), policy: policy.id, sequence, ...charge }));
        await em.insert(Policy, policy);
        await em.insertMany(Charge, charges);
        await scope.idempotency?.recordCreated(em, { type: 'policy', number });
        const created = createdPolicyRead(policy, organization, charges);
        await recordEvent(em, { type: 'policy.created', organizationId: organization.id, object: policyEventObject(created) });
        return created;
      }));
      return view;
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || !isNumberTaken(error)) throw error;
      if (input.number != null) throw conflict(`A policy with number ${input.number} already exists.`);
      if (attempt === NUMBER_ATTEMPTS) throw error;
    }
  }
}

/** The policy just inserted, as reads serve it, from the rows written (nothing is read back). */
function createdPolicyRead(policy: { number: number }, organization: OrganizationRead, charges: object[]): PolicyRead {
  return {
    ...(pickColumns(POLICY_COLUMNS, { ...policy, organizationId: organization.id }) as PolicyRead),
    number: policy.number,
    organization,
    charges: charges.map((charge) => pickColumns(CHARGE_COLUMNS, charge) as ChargeRead),
  };
}

/** The event's object: the policy as created, its organization as the read shape names it. */
function policyEventObject({ organization, organizationId: _organizationId, ...policy }: PolicyRead): object {
  return { ...policy, organization: { id: organization!.id, name: organization!.name, parentId: organization!.parentId } };
}

/** The next free number of the policy sequence (a SQL function skips numbers clients took). */
async function nextPolicyNumber(em: EntityManager): Promise<number> {
  const [row] = await querySql<{ number: string }>(em, 'select next_policy_number() as number');
  return Number(row.number);
}

function isNumberTaken(error: UniqueConstraintViolationException): boolean {
  return (error as unknown as { constraint?: string }).constraint === 'policy_number_unique';
}
