import type { GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { ORGANIZATION_WRITE } from '../../src/organizations/organization.writes.js';
import { organizationBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { everyField, everyInputField, mismatches, storedRow } from '../support/round-trip.js';
import { useTestService } from '../support/test-service.js';

/**
 * Issue 26 item 2, for organizations as for policies (policy-round-trip.test.ts): created with
 * every field of CreateOrganizationInput and then changed with every field of
 * UpdateOrganizationInput, through REST and GraphQL, read back with every field of Organization
 * on both, and the row compared property by property. Bodies and selections come from the
 * schema, so a field an organization gains is covered with no edit here.
 */
describe('an organization written, changed and read back, field by field', () => {
  const service = useTestService();
  let schema: GraphQLSchema;
  let token: string;
  let parentId: string;

  beforeAll(async () => {
    schema = await buildServiceSchema();
    token = await service.token({ sub: 'alice' });
    const parent = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(parent.status, parent.text).toBe(200);
    parentId = parent.body.id;
  });

  const address = (round: number, tag: string) =>
    everyInputField(schema, 'AddressInput', { additionalFields: { dock: `${tag}B${round}`, geo: { lat: round } } }, { round, tag });

  /** A body with every field of `input` (the create's or the change's): values where the rules need them, a distinct text for every other. */
  const body = (input: 'CreateOrganizationInput' | 'UpdateOrganizationInput', round: number) =>
    everyInputField(
      schema,
      input,
      {
        parentId,
        logo: `https://paws.example/logo-${round}.png`,
        website: `https://paws-${round}.example`,
        phone: `+1 512 555 010${round}`,
        email: `hello-${round}@paws.example`,
        address: address(round, 'o.'),
        bankAccounts: [
          everyInputField(
            schema,
            'BankAccountInput',
            { routing: `11000000${round}`, account: `000123456${round}89` },
            { round, tag: 'b.' },
          ),
        ],
        owners: [
          everyInputField(
            schema,
            'OwnerInput',
            {
              birthdate: `1980-12-1${round}`,
              taxId: `123-45-678${round}`,
              email: `owner-${round}@paws.example`,
              phone: `555-010${round}`,
              ownership: 50 + round / 2,
              address: address(round, 'w.'),
            },
            { round, tag: 'w.' },
          ),
        ],
      },
      { round },
    );

  /** REST takes and gives an address flat: its additional fields beside the named ones. */
  const flat = (value: Record<string, unknown>) => {
    const { additionalFields, ...named } = value;
    return { ...(additionalFields as object), ...named };
  };
  const restBody = (sent: Record<string, unknown>) => ({
    ...sent,
    address: flat(sent.address as Record<string, unknown>),
    owners: (sent.owners as Array<Record<string, unknown>>).map((owner) => ({
      ...owner,
      address: flat(owner.address as Record<string, unknown>),
    })),
  });

  /** What a read shows of a body: every field as sent, the secrets as their last four (spec section 6). */
  const shown = (sent: Record<string, unknown>) => ({
    ...sent,
    bankAccounts: (sent.bankAccounts as Array<Record<string, unknown>>).map(({ account, ...rest }) => ({
      ...rest,
      accountLast4: (account as string).slice(-4),
    })),
    owners: (sent.owners as Array<Record<string, unknown>>).map(({ taxId, ...rest }) => ({
      ...rest,
      taxIdLast4: (taxId as string).slice(-4),
    })),
  });

  const SELECTION = () => everyField(schema, 'Organization');

  /** Read through GraphQL and REST, and the row: each holds every field sent. */
  const expectReadBack = async (id: string, sent: Record<string, unknown>, version: number) => {
    const read = await graphql(service.url, `query ($id: ID!) { organization(id: $id) { ${SELECTION()} } }`, { id }, token);
    expect(read.body.errors).toBeUndefined();
    expect(mismatches(shown(sent), read.body.data.organization)).toEqual([]);
    const rest = await request(service.url, 'GET', `/api/v1/organization/${id}`, { token });
    expect(rest.status, rest.text).toBe(200);
    expect(mismatches(restBody(shown(sent)), rest.body)).toEqual([]);
    const written = { ...sent, id, parentId, ownerSub: 'alice', version, address: flat(sent.address as Record<string, unknown>) };
    const expected = Object.fromEntries(Object.keys(ORGANIZATION_WRITE).map((name) => [name, written[name as keyof typeof written]]));
    expect(await storedRow(service, 'Organization', ORGANIZATION_WRITE, id)).toEqual(expected);
  };

  it('creates through REST and changes through GraphQL, every field each time', async () => {
    const created = body('CreateOrganizationInput', 1);
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: restBody(created) });
    expect(response.status, response.text).toBe(200);
    expect(mismatches(restBody(shown(created)), response.body)).toEqual([]);
    await expectReadBack(response.body.id, created, 1);

    const changed = body('UpdateOrganizationInput', 2);
    const update = await graphql(
      service.url,
      `mutation ($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { ${SELECTION()} } }`,
      { id: response.body.id, input: changed },
      token,
    );
    expect(update.body.errors).toBeUndefined();
    expect(mismatches(shown(changed), update.body.data.updateOrganization)).toEqual([]);
    await expectReadBack(response.body.id, changed, 2);
  });

  it('creates through GraphQL and changes through REST, every field each time', async () => {
    const created = body('CreateOrganizationInput', 3);
    const response = await graphql(
      service.url,
      `mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { ${SELECTION()} } }`,
      { input: created },
      token,
    );
    expect(response.body.errors).toBeUndefined();
    const { id } = response.body.data.createOrganization;
    expect(mismatches(shown(created), response.body.data.createOrganization)).toEqual([]);
    await expectReadBack(id, created, 1);

    const changed = body('UpdateOrganizationInput', 4);
    const update = await request(service.url, 'PATCH', `/api/v1/organization/${id}`, {
      token,
      body: restBody(changed),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(update.status, update.text).toBe(200);
    expect(mismatches(restBody(shown(changed)), update.body)).toEqual([]);
    await expectReadBack(id, changed, 2);
  });
});
