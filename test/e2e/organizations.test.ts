import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, organizationWithSecrets, SECRETS } from '../support/fixtures.js';
import { execute, request } from '../support/http.js';
import { CreateOrganizationDocument, OrganizationDocument } from '../generated/graphql.js';
import { useTestService } from '../support/test-service.js';

const FULL = organizationBody({
  name: 'Paws',
  description: 'Pet insurance for everyone 🐾',
  logo: 'https://paws.example/logo.png',
  type: 'agency',
  descriptor: 'PAWS INSURANCE',
  phone: '+1 (512) 555-0100',
  email: 'hello@paws.example',
  website: 'https://paws.example',
  address: {
    line1: '1 Main St',
    line2: 'Suite 2',
    division: 'TX',
    city: 'Austin',
    postal: '78701',
    country: 'US',
    dock: 'B',
    geo: { lat: 30.2 },
  },
  bankAccounts: [
    { nickname: 'operating', routing: '110000000', account: '000123456789' },
    { routing: '021000021', account: 'GB33BUKB20201555555555' },
  ],
  owners: [
    {
      firstname: 'Ada',
      lastname: 'Lovelace',
      birthdate: '1980-12-10',
      taxId: '123-45-6789',
      email: 'ada@paws.example',
      phone: '555-0101',
      ownership: 60.5,
      address: { line1: '2 Side St', city: 'Austin', country: 'US' },
    },
    { firstname: 'Grace', lastname: 'Hopper', ownership: 39.5 },
  ],
  ignoredTopLevelField: { anything: true },
});

/** Creating and reading organizations over HTTP, REST and GraphQL. Refused and conflicting creates: test/in-process/creates. */
describe('organizations', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('creates an organization and answers with the create shape, field by field', async () => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: FULL });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = response.body;
    // Its keys are every field of the type (test/unit/read-models.test.ts) and no other (the closed OpenAPI schema, test/support/openapi.ts).
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toMatchObject({
      name: 'Paws',
      parentId: null,
      legalName: 'Paws & Claws LLC',
      legalType: 'llc',
      taxId: '12-3456789',
      description: 'Pet insurance for everyone 🐾',
      logo: 'https://paws.example/logo.png',
      type: 'agency',
      descriptor: 'PAWS INSURANCE',
      phone: '+1 (512) 555-0100',
      email: 'hello@paws.example',
      website: 'https://paws.example',
    });
    // The address comes back as sent, unknown properties included.
    expect(body.address).toEqual(FULL.address);
    expect(body.bankAccounts).toEqual([
      { id: expect.any(String), nickname: 'operating', routing: '110000000', accountLast4: '6789' },
      { id: expect.any(String), nickname: null, routing: '021000021', accountLast4: '5555' },
    ]);
    expect(body.owners).toEqual([
      {
        id: expect.any(String),
        firstname: 'Ada',
        lastname: 'Lovelace',
        birthdate: '1980-12-10',
        taxIdLast4: '6789',
        email: 'ada@paws.example',
        phone: '555-0101',
        ownership: 60.5,
        address: { line1: '2 Side St', city: 'Austin', country: 'US' },
      },
      {
        id: expect.any(String),
        firstname: 'Grace',
        lastname: 'Hopper',
        birthdate: null,
        taxIdLast4: null,
        email: null,
        phone: null,
        ownership: 39.5,
        address: null,
      },
    ]);
    // Full account numbers and owner tax ids never come back.
    expect(response.text).not.toContain('000123456789');
    expect(response.text).not.toContain('123-45-6789');
    expect(response.text).not.toContain('ignoredTopLevelField');
  });

  it('reads an organization as the create answered it (contract section 18), keys in the same order, secrets masked', async () => {
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationWithSecrets() });
    const response = await request(service.url, 'GET', `/api/v1/organization/${created.body.id}`, { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created.body);
    expect(JSON.stringify(response.body)).toBe(JSON.stringify(created.body));
    // name defaults to legalName; a root has parentId null.
    expect(response.body).toMatchObject({ id: created.body.id, name: 'Paws & Claws LLC', parentId: null, version: 1 });
    for (const secret of Object.values(SECRETS)) if (secret !== SECRETS.organizationTaxId) expect(response.text).not.toContain(secret);

    const child = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ parentId: created.body.id, name: 'Child' }),
    });
    const read = await request(service.url, 'GET', `/api/v1/organization/${child.body.id}`, { token });
    expect(read.body).toMatchObject({ id: child.body.id, name: 'Child', version: 1, parentId: created.body.id });
    expect(read.body).toEqual(child.body);
  });

  it('reads an id in upper case as the same organization', async () => {
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    const response = await request(service.url, 'GET', `/api/v1/organization/${created.body.id.toUpperCase()}`, { token });
    expect(response.body.id).toBe(created.body.id);
  });

  it('creates through GraphQL and reads through REST', async () => {
    const created = await execute(
      service.url,
      CreateOrganizationDocument,
      {
        input: {
          legalName: 'Via GraphQL',
          legalType: 'corp',
          taxId: '99-1',
          address: { city: 'Reno', additionalFields: { dock: 4 } },
          owners: [{ firstname: 'A', lastname: 'B', taxId: '999887777' }],
        },
      },
      token,
    );
    expect(created.status).toBe(200);
    expect(created.body.errors).toBeUndefined();
    const organization = created.body.data!.createOrganization;
    expect(organization).toMatchObject({
      name: 'Via GraphQL',
      parentId: null,
      address: { city: 'Reno', additionalFields: { dock: 4 } },
      owners: [{ taxIdLast4: '7777' }],
    });
    const read = await request(service.url, 'GET', `/api/v1/organization/${organization.id}`, { token });
    expect(read.body).toMatchObject({
      id: organization.id,
      name: 'Via GraphQL',
      parentId: null,
      version: 1,
      address: { city: 'Reno', dock: 4 },
      owners: [{ taxIdLast4: '7777' }],
    });
  });

  it('creates through REST and reads through GraphQL', async () => {
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: FULL });
    const read = await execute(service.url, OrganizationDocument, { id: created.body.id }, token);
    expect(read.body.data!.organization).toEqual({
      id: created.body.id,
      name: 'Paws',
      legalName: 'Paws & Claws LLC',
      address: { line1: '1 Main St', additionalFields: { dock: 'B', geo: { lat: 30.2 } } },
      bankAccounts: [{ accountLast4: '6789' }, { accountLast4: '5555' }],
      owners: [
        { firstname: 'Ada', ownership: 60.5 },
        { firstname: 'Grace', ownership: 39.5 },
      ],
    });
  });
});
