import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Refused and conflicting creates of policies and organizations (contract sections 4 to 6),
 * through the operation core: a number in use, an unknown plan, ids that cannot exist, missing
 * fields, a body that is not an object. The creates and reads over HTTP: test/e2e/policies and
 * test/e2e/organizations.
 */
const service = useInProcessService();
let token: string;

beforeAll(async () => {
  ({ token } = await createRootOrganization(service));
});

describe('policies', () => {
  it('answers 409 for a duplicate number and keeps the first policy intact', async () => {
    const first = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ number: 6000, petName: 'First' }) });
    expect(first.status).toBe(200);
    const again = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ number: 6000, petName: 'Second' }) });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(again.body).toMatchObject({ status: 409, code: 'CONFLICT', title: 'Conflict' });
    const viaGraphql = await service.execute(CreatePolicyDocument, { input: policyBody({ number: 6000 }) }, token);
    expect(viaGraphql.body.errors![0].extensions.code).toBe('CONFLICT');
    const rows = await service.sql<{ pet_name: string }>('select pet_name from policy where number = 6000');
    expect(rows).toEqual([{ pet_name: 'First' }]);
    const charges = await service.sql('select c.id from charge c join policy p on p.id = c.policy_id where p.number = 6000');
    expect(charges).toHaveLength(12);
  });

  it('answers 400 for an unknown coverage slug and writes nothing', async () => {
    const before = await service.sql('select id from policy');
    const response = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ coverageSlug: 'gold-plated' }) });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' },
    ]);
    expect(await service.sql('select id from policy')).toHaveLength(before.length);
  });

  it('answers 404, never 400 or 500, for policy ids that cannot exist', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '1e3', '9007199254740992', '99999999999999999999999', "1'%20or%20'1'='1"]) {
      const response = await service.request('GET', `/api/v1/policy/${id}`, { token });
      expect(response.status, id).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('organizations', () => {
  it('answers 400 with every missing required field and writes nothing', async () => {
    const response = await service.request('POST', '/api/v1/organization', { token, body: { name: 'x', legalType: 5 } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'legalName', message: 'is required' },
        { path: 'legalType', message: 'must be a string' },
        { path: 'taxId', message: 'is required' },
      ]),
    );
    const before = await service.sql('select id from organization');
    const accountsBefore = await service.sql('select id from bank_account');
    const invalidOwner = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({
        bankAccounts: [{ routing: '110000000', account: '123456789' }],
        owners: [{ firstname: 'A', lastname: 'B', ownership: 0 }],
      }),
    });
    expect(invalidOwner.status).toBe(400);
    expect(invalidOwner.body.errors).toEqual([
      { path: 'owners[0].ownership', message: 'must be a percentage greater than 0 and at most 100' },
    ]);
    expect(await service.sql('select id from organization')).toHaveLength(before.length);
    expect(await service.sql('select id from bank_account')).toHaveLength(accountsBefore.length);
  });

  it('answers 400 for a body that is not a JSON object', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const response = await service.request('POST', '/api/v1/organization', { token, body });
      expect(response.status, body).toBe(400);
      expect(response.body.code).toBe('BAD_USER_INPUT');
    }
  });
});
