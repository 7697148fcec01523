import { policyStatus } from './policy-status.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * A policy event's object (`policy.created`, `policy.cancelled`, `policy.reinstated`, `policy.renewed`): the
 * policy as the read answers it at that moment, with its status then and its organization as
 * the read shape names it.
 */
export function policyEventObject({ organization, organizationId: _organizationId, ...policy }: PolicyRead): object {
  return {
    ...policy,
    status: policyStatus(policy),
    cancellation: policy.cancellation ?? null,
    renewalOf: policy.renewalOf ?? null,
    renewedBy: policy.renewedBy ?? null,
    organization: { id: organization!.id, name: organization!.name, parentId: organization!.parentId },
  };
}
