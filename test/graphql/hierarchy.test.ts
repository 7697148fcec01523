import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import {
  CreateOrganizationDocument,
  CreatePolicyDocument,
  CreateQuoteDocument,
  ViewerDocument,
  type CreateOrganizationInput,
  type CreateQuoteInput,
} from '../generated/graphql.js';
import { useInProcessSchema } from '../support/in-process.js';
import { ALL, accessMatrix, buildTestTree } from '../support/access-matrix.js';

/**
 * The access matrix of contract section 3 through GraphQL, run in process (the REST side, and
 * the HTTP status of these GraphQL answers, are in test/e2e/hierarchy.test.ts), on the same
 * tree five levels deep, created through the mutations by the same principals:
 *
 *   A (created by alice, no org claim)
 *   ├── B (alice acting for A)
 *   │   └── C (bob acting for B)
 *   │       └── D (dave acting for C)
 *   │           └── E (dave acting for D)
 *   └── B2 (alice, parentId A)
 *       └── C2 (cara acting for B2)
 */
describe('organization hierarchy through GraphQL', () => {
  const api = useInProcessSchema();
  const org: Record<string, string> = {};
  const policy: Record<string, number> = {};
  const quote: Record<string, string> = {};

  const create = async (name: string, claims: { sub: string; org?: string }, parentId?: string) => {
    const input = organizationBody({ legalName: `Org ${name}`, ...(parentId ? { parentId } : {}) }) as CreateOrganizationInput;
    const response = await api.run(CreateOrganizationDocument, { principal: claims, variables: { input } });
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    org[name] = response.data!.createOrganization.id;
    policy[name] = 1000 + ALL.indexOf(name);
    const created = await api.run(CreatePolicyDocument, {
      principal: claims,
      variables: { input: policyBody({ organizationId: org[name], number: policy[name] }) },
    });
    expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
    const quoted = await api.run(CreateQuoteDocument, {
      principal: claims,
      variables: { input: policyBody({ organizationId: org[name] }) as CreateQuoteInput },
    });
    expect(quoted.errors, JSON.stringify(quoted.errors)).toBeUndefined();
    quote[name] = quoted.data!.createQuote.id;
  };

  beforeAll(() => buildTestTree(create, org));

  /** principal -> the organizations it may read; every other one must be NOT_FOUND. */
  const MATRIX = accessMatrix(org);

  describe.each(MATRIX)('%s', (_name, claims, readable) => {
    it('GraphQL reads exactly the allowed organizations, policies and quotes', async () => {
      const fields = ALL.map(
        (name) =>
          `o${name}: organization(id: "${org[name]}") { id } p${name}: policy(number: ${policy[name]}) { number transactions(first: 5) { edges { node { type } } } } q${name}: quote(id: "${quote[name]}") { id organizationId }`,
      );
      const response = await api.run(`{ ${fields.join('\n')} }`, { principal: claims() });
      for (const name of ALL) {
        if (readable.includes(name)) {
          expect(response.data[`o${name}`], `organization ${name}`).toEqual({ id: org[name] });
          expect(response.data[`p${name}`], `policy of ${name}`).toEqual({
            number: policy[name],
            transactions: { edges: [{ node: { type: 'issuance' } }] },
          });
          expect(response.data[`q${name}`], `quote of ${name}`).toEqual({ id: quote[name], organizationId: org[name] });
        } else {
          expect(response.data[`o${name}`], `organization ${name}`).toBeNull();
          expect(response.data[`p${name}`], `policy of ${name}`).toBeNull();
          expect(response.data[`q${name}`], `quote of ${name}`).toBeNull();
        }
      }
      const codes = (response.errors ?? []).map((error: { extensions: { code: string } }) => error.extensions.code);
      expect(codes).toEqual(Array(3 * (ALL.length - readable.length)).fill('NOT_FOUND'));
    });
  });

  it('shows the viewer its own organization', async () => {
    const response = await api.run(ViewerDocument, { principal: { sub: 'zed', org: org.C } });
    expect(response.data!.viewer).toEqual({ sub: 'zed', organization: { id: org.C, name: 'Org C' } });
  });
});
