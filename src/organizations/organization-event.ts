import { inKeyOrder, keyOrderOf, type KeyOrder } from '../values/key-order.js';
import { ADDRESS_FIELDS, type StoredAddress } from './address.type.js';
import type { OrganizationRead } from './organization.reads.js';

/**
 * The REST organization answer (create, change, read and list items answer the same, contract
 * section 18) as a GraphQL fragment: src/rest/operations.ts spreads it into every organization
 * route's document, and an organization event's object has its keys in its order
 * (ORGANIZATION_KEY_ORDER, where an address is a leaf: REST gives it flat, restAddress).
 */
export const ORGANIZATION_ANSWER = /* GraphQL */ `
  fragment OrganizationAnswer on Organization {
    id name parentId version legalName legalType taxId description logo type descriptor phone email website
    address { line1 line2 division city postal country additionalFields }
    bankAccounts { id nickname routing accountLast4 }
    owners {
      id firstname lastname birthdate taxIdLast4 email phone ownership
      address { line1 line2 division city postal country additionalFields }
    }
  }
`;

/** The REST organization answer's keys, in its order. */
export const ORGANIZATION_KEY_ORDER: KeyOrder = keyOrderOf(ORGANIZATION_ANSWER, ['address']);

/**
 * An address as REST answers it (src/rest/input-from-body.ts, flattenAddress): the properties
 * beyond the named ones first, as stored, then the named ones given, in their order.
 */
export function restAddress(address: StoredAddress | null | undefined): Record<string, unknown> | null {
  if (!address) return null;
  const named = ADDRESS_FIELDS as readonly string[];
  const extra = Object.entries(address).filter(([key]) => !named.includes(key));
  const given = named.filter((key) => address[key] != null).map((key) => [key, address[key]]);
  return Object.fromEntries([...extra, ...given]);
}

/**
 * An organization event's object (`organization.created`, `organization.updated`): the
 * organization as the REST answer gives it, key for key and in its order; account numbers and
 * owner tax ids only as their last fours, as every read.
 */
export function organizationEventObject(organization: OrganizationRead): object {
  const flat = {
    ...organization,
    address: restAddress(organization.address),
    owners: organization.owners?.map((owner) => ({ ...owner, address: restAddress(owner.address) })),
  };
  return inKeyOrder(ORGANIZATION_KEY_ORDER, flat) as object;
}
