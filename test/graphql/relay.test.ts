import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessSchema } from '../support/in-process.js';

/** Relay's requirements (spec section 10): Node, node(id:), Policy.id and the full PageInfo. */
describe('Relay', () => {
  const api = useInProcessSchema();
  const alice = { sub: 'alice' };
  let organizationId: string;
  let policyId: string;
  let siblingId: string;

  beforeAll(async () => {
    const created = await api.run(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, {
      principal: alice,
      variables: { input: organizationBody() },
    });
    organizationId = created.data.createOrganization.id;
    const policy = await api.run(`mutation($input: CreatePolicyInput!) { createPolicy(input: $input) { id number } }`, {
      principal: alice,
      variables: { input: policyBody({ organizationId }) },
    });
    policyId = policy.data.createPolicy.id;
    const sibling = await api.run(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, {
      principal: { sub: 'bob' },
      variables: { input: organizationBody() },
    });
    siblingId = sibling.data.createOrganization.id;
    for (let i = 0; i < 3; i++) {
      await api.run(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, {
        principal: alice,
        variables: { input: organizationBody({ parentId: organizationId, legalName: `Child ${i}` }) },
      });
    }
  });

  const NODE = `query($id: ID!) { node(id: $id) { __typename id ... on Organization { legalName } ... on Policy { number } } }`;

  it('fetches an organization and a policy again by id, through the access rule', async () => {
    const organization = await api.run(NODE, { principal: alice, variables: { id: organizationId } });
    expect(organization).toEqual({ data: { node: { __typename: 'Organization', id: organizationId, legalName: 'Paws & Claws LLC' } } });
    const policy = await api.run(NODE, { principal: alice, variables: { id: policyId } });
    expect(policy.data.node).toMatchObject({ __typename: 'Policy', id: policyId, number: expect.any(Number) });
  });

  it('answers null with NOT_FOUND for an id out of reach, unknown or malformed', async () => {
    for (const id of [siblingId, randomUUID(), 'not-an-id', '']) {
      const response = await api.run(NODE, { principal: alice, variables: { id } });
      expect(response.data, id).toEqual({ node: null });
      expect(
        response.errors.map((error: { extensions: { code: string } }) => error.extensions.code),
        id,
      ).toEqual(['NOT_FOUND']);
    }
    const bob = await api.run(NODE, { principal: { sub: 'bob' }, variables: { id: policyId } });
    expect(bob.data).toEqual({ node: null });
  });

  it('gives the full PageInfo: start and end cursors, and whether pages come before and after', async () => {
    const page = (after: string | null) =>
      api.run(
        `query($id: ID!, $after: String) { organization(id: $id) { children(first: 2, after: $after) {
          edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`,
        {
          principal: alice,
          variables: { id: organizationId, after },
        },
      );
    const first = (await page(null)).data.organization.children;
    expect(first.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: first.edges[0].cursor,
      endCursor: first.edges[1].cursor,
    });
    const second = (await page(first.pageInfo.endCursor)).data.organization.children;
    expect(second.edges).toHaveLength(1);
    expect(second.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: second.edges[0].cursor,
      endCursor: second.edges[0].cursor,
    });
  });
});
