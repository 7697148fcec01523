import type { Request } from 'express';
import { policyNotFound } from '../policies/policy.reads.js';
import { parsePolicyNumber } from '../values/identifiers.js';
import { flattenAddress } from './input-from-body.js';

/**
 * The REST compatibility layer as data: each `/api/v1` route is one GraphQL document, parsed
 * and validated once at start-up; a request only supplies variables (path parameter or JSON
 * body) and the response is the operation's data, reshaped where REST names differ.
 */
export interface RestRoute {
  method: 'GET' | 'POST';
  path: string;
  document: string;
  /** For POST routes: the JSON body becomes this variable (mapped onto its input type). */
  bodyVariable?: string;
  /** For GET routes: the path parameter as variables; may throw NOT_FOUND for impossible ids. */
  pathVariables?: (params: Request['params']) => Record<string, unknown>;
  /** The operation's data as the REST body. */
  response: (data: Record<string, any>) => unknown;
}

const ADDRESS = 'line1 line2 division city postal country additionalFields';
const COVERAGE = 'slug name deductible reimbursementRate annualLimit monthlyPremium currency';
const CHARGE = 'id type periodStart periodEnd dueDate amount currency status';
const ORGANIZATION_SUMMARY = 'id name parentId';

type Data = Record<string, any>;

const organizationBody = (organization: Data) => ({
  ...organization,
  address: flattenAddress(organization.address),
  owners: organization.owners.map((owner: Data) => ({ ...owner, address: flattenAddress(owner.address) })),
});

export const REST_ROUTES: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/organization',
    document: `mutation CreateOrganization($input: CreateOrganizationInput!) {
      createOrganization(input: $input) {
        id name parentId legalName legalType taxId description logo type descriptor phone email website
        address { ${ADDRESS} }
        bankAccounts { id nickname routing accountLast4 }
        owners { id firstname lastname birthdate taxIdLast4 email phone ownership address { ${ADDRESS} } }
      }
    }`,
    bodyVariable: 'input',
    response: (data) => organizationBody(data.createOrganization),
  },
  {
    method: 'GET',
    path: '/api/v1/organization/:id',
    document: `query Organization($id: ID!) { organization(id: $id) { ${ORGANIZATION_SUMMARY} } }`,
    pathVariables: (params) => ({ id: params.id }),
    response: (data) => data.organization,
  },
  {
    method: 'POST',
    path: '/api/v1/policy',
    document: `mutation CreatePolicy($input: CreatePolicyInput!) {
      createPolicy(input: $input) {
        internalID number ownerFirstname ownerLastname ownerDOB petName petDOB
        effectiveDate expirationDate coverageSlug
        coverage { ${COVERAGE} }
        charges { ${CHARGE} }
        organization { ${ORGANIZATION_SUMMARY} }
      }
    }`,
    bodyVariable: 'input',
    response: (data) => data.createPolicy,
  },
  {
    method: 'GET',
    path: '/api/v1/policy/:id',
    document: `query Policy($number: SafeInt!) {
      policy(number: $number) {
        number
        coverage { ${COVERAGE} }
        charges { ${CHARGE} }
        organization { ${ORGANIZATION_SUMMARY} }
      }
    }`,
    pathVariables: (params) => {
      const number = parsePolicyNumber(String(params.id));
      // Not a policy number at all: the same 404 as a missing policy, without a query.
      if (number === null) throw policyNotFound();
      return { number };
    },
    response: (data) => data.policy,
  },
];
