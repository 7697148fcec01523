import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The schema as Relay sees it (spec section 10): relay-compiler (the npm package ships its
 * binary) compiles a small app's documents against schema/schema.graphql: a paginated
 * `@connection` of an organization's policies, made `@refetchable` (which needs Node,
 * `node(id:)` and ids on what is cached), and the mutations that change things (updateOrganization, changePolicy, cancelPolicy,
 * reinstatePolicy, renewPolicy).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const DOCUMENTS = `
const organizationPolicies = graphql\`
  fragment OrganizationPolicies_organization on Organization
  @refetchable(queryName: "OrganizationPoliciesRefetchQuery")
  @argumentDefinitions(first: { type: "Int", defaultValue: 20 }, after: { type: "String" }) {
    id
    name
    children(first: 5) { edges { node { id name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
    policies(first: $first, after: $after) @connection(key: "OrganizationPolicies_policies") {
      edges { node { id number coverage { slug } charges { id amount } } }
    }
  }
\`;
const viewer = graphql\`
  query OrganizationViewerQuery { viewer { sub organization { ...OrganizationPolicies_organization } } }
\`;
const updateOrganization = graphql\`
  mutation OrganizationUpdateMutation($id: ID!, $input: UpdateOrganizationInput!, $ifVersion: Int) {
    updateOrganization(id: $id, input: $input, ifVersion: $ifVersion) { id version name email address { city } ...OrganizationPolicies_organization }
  }
\`;
const node = graphql\`
  query PolicyNodeQuery($id: ID!) { node(id: $id) { id ... on Policy { number } } }
\`;
const renew = graphql\`
  mutation PolicyRenewMutation($number: SafeInt!, $input: RenewPolicyInput!) {
    renewPolicy(number: $number, input: $input) { id number renewalOf renewedBy status }
  }
\`;
const change = graphql\`
  mutation PolicyChangeMutation($number: SafeInt!, $input: ChangePolicyInput!) {
    changePolicy(number: $number, input: $input) { id number petName coverage { slug } charges { id type amount transactionId } }
  }
\`;
const cancel = graphql\`
  mutation PolicyCancelMutation($number: SafeInt!, $input: CancelPolicyInput!) {
    cancelPolicy(number: $number, input: $input) { id status cancellation { effectiveDate reason method credited fee } }
  }
\`;
const reinstate = graphql\`
  mutation PolicyReinstateMutation($number: SafeInt!, $input: ReinstatePolicyInput!) {
    reinstatePolicy(number: $number, input: $input) { id status cancellation { effectiveDate } }
  }
\`;
`;

describe('relay-compiler', () => {
  it('compiles @connection and @refetchable on Organization, and the mutations that change organizations and policies, against the schema', () => {
    const app = mkdtempSync(join(tmpdir(), 'relay-app-'));
    mkdirSync(join(app, 'src', '__generated__'), { recursive: true });
    writeFileSync(join(app, 'src', 'Organization.ts'), DOCUMENTS);
    writeFileSync(
      join(app, 'relay.config.json'),
      JSON.stringify({
        src: './src',
        schema: join(ROOT, 'schema/schema.graphql'),
        language: 'typescript',
        artifactDirectory: './src/__generated__',
      }),
    );
    const result = spawnSync(join(ROOT, 'node_modules/.bin/relay-compiler'), [], { cwd: app, encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(readdirSync(join(app, 'src', '__generated__')).sort()).toEqual([
      'OrganizationPoliciesRefetchQuery.graphql.ts',
      'OrganizationPolicies_organization.graphql.ts',
      'OrganizationUpdateMutation.graphql.ts',
      'OrganizationViewerQuery.graphql.ts',
      'PolicyCancelMutation.graphql.ts',
      'PolicyChangeMutation.graphql.ts',
      'PolicyNodeQuery.graphql.ts',
      'PolicyReinstateMutation.graphql.ts',
      'PolicyRenewMutation.graphql.ts',
    ]);
    // The closed sets are enums (contract section 14): a reason outside them does not compile (real-clients-3 F24).
    const cancel = readFileSync(join(app, 'src', '__generated__', 'PolicyCancelMutation.graphql.ts'), 'utf8');
    expect(cancel).toContain(
      'export type CancellationReason = "fraud" | "free_look" | "insured_request" | "non_payment" | "other" | "underwriting" | "%future added value";',
    );
    expect(cancel).toMatch(/export type CancelPolicyInput = \{\s+effectiveDate: string;\s+reason: CancellationReason;\s+\};/);
    expect(cancel).toContain('readonly method: CancellationMethod;');
  });
});
