import type { Request } from 'express';
import { policyNotFound } from '../policies/policy.reads.js';
import { parsePolicyNumber } from '../values/identifiers.js';
import type { CreateOrganizationMutation, CreatePolicyMutation, OrganizationQuery, PolicyQuery } from './generated/operations.js';
import { flattenAddress } from './input-from-body.js';
import { CREATE_ORGANIZATION, CREATE_POLICY, ORGANIZATION, POLICY } from './operations.js';

/**
 * The REST compatibility layer as data: each `/api/v1` route is one GraphQL document
 * (operations.ts), parsed, validated and compiled once at start-up; a request only supplies
 * variables (path parameter or JSON body) and the response is the operation's data, reshaped
 * where REST names differ. `response` is typed by the document's generated result type.
 */
interface RouteOf<Data> {
  path: string;
  document: string;
  /** The operation's data as the REST body. */
  response: (data: Data) => unknown;
}

/** A read: the path parameters become the variables; may throw NOT_FOUND for impossible ids. */
export interface GetRoute<Data = never> extends RouteOf<Data> {
  method: 'GET';
  pathVariables: (params: Request['params']) => Record<string, unknown>;
}

/** A create: the JSON body becomes this variable (mapped onto its input type). */
export interface PostRoute<Data = never> extends RouteOf<Data> {
  method: 'POST';
  bodyVariable: string;
}

export type RestRoute = GetRoute<any> | PostRoute<any>;

const get = <Data>(route: Omit<GetRoute<Data>, 'method'>): GetRoute<Data> => ({ method: 'GET', ...route });
const post = <Data>(route: Omit<PostRoute<Data>, 'method'>): PostRoute<Data> => ({ method: 'POST', ...route });

export const REST_ROUTES: RestRoute[] = [
  post<CreateOrganizationMutation>({
    path: '/api/v1/organization',
    document: CREATE_ORGANIZATION,
    bodyVariable: 'input',
    response: ({ createOrganization: organization }) => ({
      ...organization,
      address: flattenAddress(organization.address),
      owners: organization.owners.map((owner) => ({ ...owner, address: flattenAddress(owner.address) })),
    }),
  }),
  get<OrganizationQuery>({
    path: '/api/v1/organization/:id',
    document: ORGANIZATION,
    pathVariables: (params) => ({ id: params.id }),
    response: (data) => data.organization,
  }),
  post<CreatePolicyMutation>({
    path: '/api/v1/policy',
    document: CREATE_POLICY,
    bodyVariable: 'input',
    response: (data) => data.createPolicy,
  }),
  get<PolicyQuery>({
    path: '/api/v1/policy/:id',
    document: POLICY,
    pathVariables: (params) => {
      const number = parsePolicyNumber(String(params.id));
      // Not a policy number at all: the same 404 as a missing policy, without a query.
      if (number === null) throw policyNotFound();
      return { number };
    },
    response: (data) => data.policy,
  }),
];
