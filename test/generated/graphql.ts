/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type AddressInput = {
  /** Further properties to keep with the address (REST clients send them inline); at most 2 KB as JSON, 3 levels deep */
  additionalFields?: Record<string, unknown> | null | undefined;
  city?: string | null | undefined;
  country?: string | null | undefined;
  division?: string | null | undefined;
  line1?: string | null | undefined;
  line2?: string | null | undefined;
  postal?: string | null | undefined;
};

export type BankAccountInput = {
  /** Stored encrypted; responses carry accountLast4 */
  account: string;
  nickname?: string | null | undefined;
  routing: string;
};

export type CreateOrganizationInput = {
  address?: AddressInput | null | undefined;
  /** At most 10 */
  bankAccounts?: Array<BankAccountInput> | null | undefined;
  description?: string | null | undefined;
  descriptor?: string | null | undefined;
  email?: string | null | undefined;
  legalName: string;
  legalType: string;
  logo?: string | null | undefined;
  /** Defaults to legalName */
  name?: string | null | undefined;
  /** At most 25; ownership adds up to at most 100 */
  owners?: Array<OwnerInput> | null | undefined;
  /** Parent organization (must be accessible, and less deep than ORGANIZATION_MAX_DEPTH, 32 levels by default, a root being level 1); defaults to the token's org, else a root */
  parentId?: string | number | null | undefined;
  phone?: string | null | undefined;
  taxId: string;
  type?: string | null | undefined;
  website?: string | null | undefined;
};

export type CreatePolicyInput = {
  /** A slug of the coverage catalog (query coverages); required unless quoteId */
  coverageSlug?: string | null | undefined;
  /** 3 or 4 digits; validated, then discarded (never stored) */
  cvc?: string | null | undefined;
  /** YYYY-MM-DD; required unless quoteId */
  effectiveDate?: string | null | undefined;
  /** YYYY-MM-DD, after effectiveDate, at most 5 years later; required unless quoteId */
  expirationDate?: string | null | undefined;
  internalID?: string | null | undefined;
  /** Unique; assigned by the server when absent */
  number?: number | null | undefined;
  /** Owning organization (must be accessible); defaults to the token's org */
  organizationId?: string | number | null | undefined;
  /** YYYY-MM-DD, not in the future */
  ownerDOB?: string | null | undefined;
  /** Required unless quoteId */
  ownerFirstname?: string | null | undefined;
  /** Required unless quoteId */
  ownerLastname?: string | null | undefined;
  /** YYYY-MM-DD, not in the future nor after effectiveDate */
  petDOB?: string | null | undefined;
  /** Required unless quoteId */
  petName?: string | null | undefined;
  /** Issues this quote (contract section 14): the policy's fields, coverage and charges are the quote's; send no quoted field */
  quoteId?: string | number | null | undefined;
};

export type CreateQuoteInput = {
  /** A slug of the coverage catalog (query coverages) */
  coverageSlug: string;
  /** YYYY-MM-DD */
  effectiveDate: string;
  /** YYYY-MM-DD, after effectiveDate, at most 5 years later */
  expirationDate: string;
  /** Organization the policy would belong to (must be accessible); defaults to the token's org */
  organizationId?: string | number | null | undefined;
  /** YYYY-MM-DD, not in the future */
  ownerDOB?: string | null | undefined;
  ownerFirstname: string;
  ownerLastname: string;
  /** YYYY-MM-DD, not in the future nor after effectiveDate */
  petDOB?: string | null | undefined;
  petName: string;
};

export type OwnerInput = {
  address?: AddressInput | null | undefined;
  /** YYYY-MM-DD, not in the future */
  birthdate?: string | null | undefined;
  email?: string | null | undefined;
  firstname: string;
  lastname: string;
  /** Percentage owned, 0 < ownership <= 100 */
  ownership?: number | null | undefined;
  phone?: string | null | undefined;
  /** 4 to 40 letters or digits (separators allowed); stored encrypted, responses carry taxIdLast4 */
  taxId?: string | null | undefined;
};

/** Where a quote stands, as of the read */
export type QuoteStatus =
  /** expiresAt has passed without it being issued */
  | 'expired'
  /** A policy was issued from it (policyNumber) */
  | 'issued'
  /** It can be issued */
  | 'open';

export type CreateOrganizationMutationVariables = Exact<{
  input: CreateOrganizationInput;
}>;


export type CreateOrganizationMutation = { createOrganization: { id: string, name: string, parentId: string | null, legalName: string, address: { city: string | null, additionalFields: Record<string, unknown> | null } | null, owners: Array<{ taxIdLast4: string | null }> } };

export type OrganizationQueryVariables = Exact<{
  id: string | number;
}>;


export type OrganizationQuery = { organization: { id: string, name: string, legalName: string, address: { line1: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ accountLast4: string }>, owners: Array<{ firstname: string, ownership: number | null }> } | null };

export type OrganizationParentQueryVariables = Exact<{
  id: string | number;
}>;


export type OrganizationParentQuery = { organization: { parentId: string | null, parent: { id: string, name: string } | null } | null };

export type OrganizationChildrenQueryVariables = Exact<{
  id: string | number;
  first: number;
  after?: string | null | undefined;
}>;


export type OrganizationChildrenQuery = { organization: { children: { edges: Array<{ cursor: string, node: { id: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type OrganizationPoliciesQueryVariables = Exact<{
  id: string | number;
  first: number;
  after?: string | null | undefined;
}>;


export type OrganizationPoliciesQuery = { organization: { policies: { edges: Array<{ cursor: string, node: { number: number } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { sub: string, organization: { id: string, name: string } | null } };

export type CreatePolicyMutationVariables = Exact<{
  input: CreatePolicyInput;
}>;


export type CreatePolicyMutation = { createPolicy: { number: number, petName: string, charges: Array<{ amount: number }>, organization: { id: string } } };

export type PolicyQueryVariables = Exact<{
  number: number;
}>;


export type PolicyQuery = { policy: { number: number, petName: string, coverage: { slug: string }, charges: Array<{ periodStart: string, amount: number }>, organization: { id: string, name: string, parentId: string | null } } | null };

export type CoveragesQueryVariables = Exact<{ [key: string]: never; }>;


export type CoveragesQuery = { coverages: Array<{ slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }> };

export type CreateQuoteMutationVariables = Exact<{
  input: CreateQuoteInput;
}>;


export type CreateQuoteMutation = { createQuote: { id: string, organizationId: string, status: QuoteStatus, totalPremium: number, charges: Array<{ periodStart: string, amount: number }> } };


export const CreateOrganizationDocument = {"__meta__":{"hash":"sha256:536c73e92c9bb96cc77e8e0848c828906ee0ea195abd3f8bc5ca0b0928ccb9c3"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateOrganization"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateOrganizationInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createOrganization"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"legalName"}},{"kind":"Field","name":{"kind":"Name","value":"address"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"additionalFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"owners"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taxIdLast4"}}]}}]}}]}}]} as unknown as DocumentNode<CreateOrganizationMutation, CreateOrganizationMutationVariables>;
export const OrganizationDocument = {"__meta__":{"hash":"sha256:14c5364b5fbc23b91d9c4639f2c016b1b4da2b8e10e34254651560bfb4424bbc"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Organization"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"organization"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"legalName"}},{"kind":"Field","name":{"kind":"Name","value":"address"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"line1"}},{"kind":"Field","name":{"kind":"Name","value":"additionalFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bankAccounts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"accountLast4"}}]}},{"kind":"Field","name":{"kind":"Name","value":"owners"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"firstname"}},{"kind":"Field","name":{"kind":"Name","value":"ownership"}}]}}]}}]}}]} as unknown as DocumentNode<OrganizationQuery, OrganizationQueryVariables>;
export const OrganizationParentDocument = {"__meta__":{"hash":"sha256:de8ea5353ec2130fd412f4823a61795b93efcd4eb2b0fe075b932111667f0aef"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OrganizationParent"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"organization"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"parent"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]} as unknown as DocumentNode<OrganizationParentQuery, OrganizationParentQueryVariables>;
export const OrganizationChildrenDocument = {"__meta__":{"hash":"sha256:ce5afb48293c0bfbda3a3f5732c4eb0f14b4810056e33028bb9a3f7d881757f1"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OrganizationChildren"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"organization"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"children"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]}}]} as unknown as DocumentNode<OrganizationChildrenQuery, OrganizationChildrenQueryVariables>;
export const OrganizationPoliciesDocument = {"__meta__":{"hash":"sha256:122d094d0b4fb2b380b4ed186c3c1cc5f8a08ff7a23d731d21a84f760d715b02"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OrganizationPolicies"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"organization"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"policies"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"number"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]}}]} as unknown as DocumentNode<OrganizationPoliciesQuery, OrganizationPoliciesQueryVariables>;
export const ViewerDocument = {"__meta__":{"hash":"sha256:e066e0edcea22539c2c718829f2d8b760952a16363882a59d0c34d0569ef40fa"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sub"}},{"kind":"Field","name":{"kind":"Name","value":"organization"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]} as unknown as DocumentNode<ViewerQuery, ViewerQueryVariables>;
export const CreatePolicyDocument = {"__meta__":{"hash":"sha256:66ba6def4545ad406fd7a51e747584f034f66175c92f7fd849971a847f287e7f"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreatePolicy"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreatePolicyInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createPolicy"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"number"}},{"kind":"Field","name":{"kind":"Name","value":"petName"}},{"kind":"Field","name":{"kind":"Name","value":"charges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"organization"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}}]}}]}}]}}]} as unknown as DocumentNode<CreatePolicyMutation, CreatePolicyMutationVariables>;
export const PolicyDocument = {"__meta__":{"hash":"sha256:737a389ac3f70c9331e1444a84dffd42da370b97a89051d350fe867780b9dea0"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Policy"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"number"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SafeInt"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"policy"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"number"},"value":{"kind":"Variable","name":{"kind":"Name","value":"number"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"number"}},{"kind":"Field","name":{"kind":"Name","value":"petName"}},{"kind":"Field","name":{"kind":"Name","value":"coverage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"slug"}}]}},{"kind":"Field","name":{"kind":"Name","value":"charges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"periodStart"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"organization"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}}]}}]}}]}}]} as unknown as DocumentNode<PolicyQuery, PolicyQueryVariables>;
export const CoveragesDocument = {"__meta__":{"hash":"sha256:1b66a0d3cbfe1c7d3fbb843d42b7c4fedc2e305e3288e310e70ed2bf73ebeaae"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Coverages"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"coverages"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"slug"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deductible"}},{"kind":"Field","name":{"kind":"Name","value":"reimbursementRate"}},{"kind":"Field","name":{"kind":"Name","value":"annualLimit"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyPremium"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}}]}}]} as unknown as DocumentNode<CoveragesQuery, CoveragesQueryVariables>;
export const CreateQuoteDocument = {"__meta__":{"hash":"sha256:8cc3be5b087ce18a7272988d9cf928c4e872d54a1e851101e97db213b55d498e"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateQuote"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateQuoteInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createQuote"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"organizationId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"totalPremium"}},{"kind":"Field","name":{"kind":"Name","value":"charges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"periodStart"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}}]}}]} as unknown as DocumentNode<CreateQuoteMutation, CreateQuoteMutationVariables>;