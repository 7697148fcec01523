/**
 * The GraphQL documents behind the `/api/v1` routes, one per route, written out in full so they
 * read as the REST contract in GraphQL terms. `npm run codegen` types their results
 * (`generated/operations.ts`), so each route's `response` is checked against its selection;
 * the OpenAPI response schemas are derived from the same selections (openapi-schemas.ts).
 */
export const CREATE_ORGANIZATION = /* GraphQL */ `
  mutation CreateOrganization($input: CreateOrganizationInput!) {
    createOrganization(input: $input) {
      id name parentId legalName legalType taxId description logo type descriptor phone email website
      address { line1 line2 division city postal country additionalFields }
      bankAccounts { id nickname routing accountLast4 }
      owners {
        id firstname lastname birthdate taxIdLast4 email phone ownership
        address { line1 line2 division city postal country additionalFields }
      }
    }
  }
`;

export const ORGANIZATION = /* GraphQL */ `
  query Organization($id: ID!) {
    organization(id: $id) { id name parentId }
  }
`;

export const CREATE_POLICY = /* GraphQL */ `
  mutation CreatePolicy($input: CreatePolicyInput!) {
    createPolicy(input: $input) {
      internalID number ownerFirstname ownerLastname ownerDOB petName petDOB
      effectiveDate expirationDate coverageSlug
      coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
      charges { id type periodStart periodEnd dueDate amount currency status }
      organization { id name parentId }
    }
  }
`;

export const POLICY = /* GraphQL */ `
  query Policy($number: SafeInt!) {
    policy(number: $number) {
      number
      coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
      charges { id type periodStart periodEnd dueDate amount currency status }
      organization { id name parentId }
    }
  }
`;
