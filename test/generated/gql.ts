/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "mutation CreateOrganization($input: CreateOrganizationInput!) {\n  createOrganization(input: $input) {\n    id\n    name\n    parentId\n    legalName\n    address {\n      city\n      additionalFields\n    }\n    owners {\n      taxIdLast4\n    }\n  }\n}\n\nquery Organization($id: ID!) {\n  organization(id: $id) {\n    id\n    name\n    legalName\n    address {\n      line1\n      additionalFields\n    }\n    bankAccounts {\n      accountLast4\n    }\n    owners {\n      firstname\n      ownership\n    }\n  }\n}\n\nquery OrganizationParent($id: ID!) {\n  organization(id: $id) {\n    parentId\n    parent {\n      id\n      name\n    }\n  }\n}\n\nquery OrganizationChildren($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    children(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery OrganizationPolicies($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    policies(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          number\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery Viewer {\n  viewer {\n    sub\n    organization {\n      id\n      name\n    }\n  }\n}": typeof types.CreateOrganizationDocument,
    "mutation CreatePolicy($input: CreatePolicyInput!) {\n  createPolicy(input: $input) {\n    number\n    petName\n    charges {\n      amount\n    }\n    organization {\n      id\n    }\n  }\n}\n\nquery Policy($number: SafeInt!) {\n  policy(number: $number) {\n    number\n    petName\n    coverage {\n      slug\n    }\n    charges {\n      periodStart\n      amount\n    }\n    organization {\n      id\n      name\n      parentId\n    }\n  }\n}\n\nquery Coverages {\n  coverages {\n    slug\n    name\n    deductible\n    reimbursementRate\n    annualLimit\n    monthlyPremium\n    currency\n  }\n}": typeof types.CreatePolicyDocument,
};
const documents: Documents = {
    "mutation CreateOrganization($input: CreateOrganizationInput!) {\n  createOrganization(input: $input) {\n    id\n    name\n    parentId\n    legalName\n    address {\n      city\n      additionalFields\n    }\n    owners {\n      taxIdLast4\n    }\n  }\n}\n\nquery Organization($id: ID!) {\n  organization(id: $id) {\n    id\n    name\n    legalName\n    address {\n      line1\n      additionalFields\n    }\n    bankAccounts {\n      accountLast4\n    }\n    owners {\n      firstname\n      ownership\n    }\n  }\n}\n\nquery OrganizationParent($id: ID!) {\n  organization(id: $id) {\n    parentId\n    parent {\n      id\n      name\n    }\n  }\n}\n\nquery OrganizationChildren($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    children(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery OrganizationPolicies($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    policies(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          number\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery Viewer {\n  viewer {\n    sub\n    organization {\n      id\n      name\n    }\n  }\n}": types.CreateOrganizationDocument,
    "mutation CreatePolicy($input: CreatePolicyInput!) {\n  createPolicy(input: $input) {\n    number\n    petName\n    charges {\n      amount\n    }\n    organization {\n      id\n    }\n  }\n}\n\nquery Policy($number: SafeInt!) {\n  policy(number: $number) {\n    number\n    petName\n    coverage {\n      slug\n    }\n    charges {\n      periodStart\n      amount\n    }\n    organization {\n      id\n      name\n      parentId\n    }\n  }\n}\n\nquery Coverages {\n  coverages {\n    slug\n    name\n    deductible\n    reimbursementRate\n    annualLimit\n    monthlyPremium\n    currency\n  }\n}": types.CreatePolicyDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateOrganization($input: CreateOrganizationInput!) {\n  createOrganization(input: $input) {\n    id\n    name\n    parentId\n    legalName\n    address {\n      city\n      additionalFields\n    }\n    owners {\n      taxIdLast4\n    }\n  }\n}\n\nquery Organization($id: ID!) {\n  organization(id: $id) {\n    id\n    name\n    legalName\n    address {\n      line1\n      additionalFields\n    }\n    bankAccounts {\n      accountLast4\n    }\n    owners {\n      firstname\n      ownership\n    }\n  }\n}\n\nquery OrganizationParent($id: ID!) {\n  organization(id: $id) {\n    parentId\n    parent {\n      id\n      name\n    }\n  }\n}\n\nquery OrganizationChildren($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    children(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery OrganizationPolicies($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    policies(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          number\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery Viewer {\n  viewer {\n    sub\n    organization {\n      id\n      name\n    }\n  }\n}"): (typeof documents)["mutation CreateOrganization($input: CreateOrganizationInput!) {\n  createOrganization(input: $input) {\n    id\n    name\n    parentId\n    legalName\n    address {\n      city\n      additionalFields\n    }\n    owners {\n      taxIdLast4\n    }\n  }\n}\n\nquery Organization($id: ID!) {\n  organization(id: $id) {\n    id\n    name\n    legalName\n    address {\n      line1\n      additionalFields\n    }\n    bankAccounts {\n      accountLast4\n    }\n    owners {\n      firstname\n      ownership\n    }\n  }\n}\n\nquery OrganizationParent($id: ID!) {\n  organization(id: $id) {\n    parentId\n    parent {\n      id\n      name\n    }\n  }\n}\n\nquery OrganizationChildren($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    children(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery OrganizationPolicies($id: ID!, $first: Int!, $after: String) {\n  organization(id: $id) {\n    policies(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          number\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}\n\nquery Viewer {\n  viewer {\n    sub\n    organization {\n      id\n      name\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreatePolicy($input: CreatePolicyInput!) {\n  createPolicy(input: $input) {\n    number\n    petName\n    charges {\n      amount\n    }\n    organization {\n      id\n    }\n  }\n}\n\nquery Policy($number: SafeInt!) {\n  policy(number: $number) {\n    number\n    petName\n    coverage {\n      slug\n    }\n    charges {\n      periodStart\n      amount\n    }\n    organization {\n      id\n      name\n      parentId\n    }\n  }\n}\n\nquery Coverages {\n  coverages {\n    slug\n    name\n    deductible\n    reimbursementRate\n    annualLimit\n    monthlyPremium\n    currency\n  }\n}"): (typeof documents)["mutation CreatePolicy($input: CreatePolicyInput!) {\n  createPolicy(input: $input) {\n    number\n    petName\n    charges {\n      amount\n    }\n    organization {\n      id\n    }\n  }\n}\n\nquery Policy($number: SafeInt!) {\n  policy(number: $number) {\n    number\n    petName\n    coverage {\n      slug\n    }\n    charges {\n      periodStart\n      amount\n    }\n    organization {\n      id\n      name\n      parentId\n    }\n  }\n}\n\nquery Coverages {\n  coverages {\n    slug\n    name\n    deductible\n    reimbursementRate\n    annualLimit\n    monthlyPremium\n    currency\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;