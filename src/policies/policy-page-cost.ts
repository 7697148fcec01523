import type { GraphQLResolveInfo } from 'graphql';
import type { Page } from '../graphql/batch.js';
import { nodeListWeight, pageWithinMeter, type CostMeter } from '../graphql/cost-meter.js';
import type { PolicyRead } from './policy.reads.js';
import { MAX_CHARGES } from './ledger/premium-schedule.js';

/**
 * A page of policies as the request's cost meter allows it (contract section 14, "Bounded
 * ledgers"): each policy's ledger counted at its real length (`ledgerLength`, read with the
 * page) beyond the schedule's size its static cost counted, times what the page selects on each
 * charge. The page stops before the policy that would pass the limit, with more to follow.
 */
export function policyPageWithinMeter<P extends Page<PolicyRead>>(meter: CostMeter, info: GraphQLResolveInfo, page: P): P {
  const weight = nodeListWeight(info, 'charges');
  if (weight === 0) return page;
  return pageWithinMeter(meter, page, (policy) => Math.max(0, (policy.ledgerLength ?? 0) - MAX_CHARGES) * weight);
}
