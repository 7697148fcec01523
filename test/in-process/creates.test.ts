import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { addDays, todayUtc } from '../../src/values/calendar-date.js';
import { organizationBody, organizationWithSecrets, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Refused and conflicting creates of policies and organizations (contract sections 4 to 6),
 * through the operation core: a number in use, an unknown plan, ids that cannot exist, missing
 * fields, a body that is not an object, typos refused all at once with the field they were meant
 * to be. The creates and reads over HTTP: test/e2e/policies, test/e2e/organizations and
 * test/e2e/rest-reads.
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

describe('integrators read back what they write (contract section 18)', () => {
  const today = todayUtc();

  it('answers every broken rule of a policy body at once: unknown fields with "did you mean", a missing field, a bad cvc and an unknown plan', async () => {
    const root = await service.request('POST', '/api/v1/organization', {
      token: await service.token({ sub: 'reads-bob' }),
      body: organizationWithSecrets(),
    });
    const token = await service.token({ sub: 'reads-bob', org: root.body.id });
    const { petName: _petName, ...withoutPet } = policyBody();
    const bad = { ...withoutPet, cvc: '12x', coverageSlug: 'gold', petDob: '2020-01-01', organisationId: root.body.id, colour: 'red' };
    const created = await service.request('POST', '/api/v1/policy', { token, body: bad });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('BAD_USER_INPUT');
    const byPath = Object.fromEntries(created.body.errors.map((error: { path: string; message: string }) => [error.path, error.message]));
    expect(byPath).toEqual({
      petDob: 'is not a field of this request; did you mean "petDOB"?',
      organisationId: 'is not a field of this request; did you mean "organizationId"?',
      colour: 'is not a field of this request',
      petName: expect.any(String),
      cvc: expect.any(String),
      coverageSlug: 'is not a plan of the coverage catalog (see the coverages query)',
    });
    expect(
      await service.sql('select 1 from policy p join organization o on o.id = p.organization_id where o.id = $1', [root.body.id]),
    ).toEqual([]);

    // A quote shares the rules, the slug included; its refused fields keep their own message.
    const { cvc: _cvc, ...quoteBad } = bad;
    const quote = await service.request('POST', '/api/v1/quote', { token, body: { ...quoteBad, internalID: 'x' } });
    expect(quote.status).toBe(400);
    expect(quote.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'colour',
      'coverageSlug',
      'internalID',
      'organisationId',
      'petDob',
      'petName',
    ]);
    expect(quote.body.errors.find((error: { path: string }) => error.path === 'internalID').message).toContain('is not part of a quote');

    // A change and a renewal judge the plan with their other rules too.
    const policy = await service.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ effectiveDate: today, expirationDate: addDays(today, 365) }),
    });
    const change = await service.request('POST', `/api/v1/policy/${policy.body.number}/changes`, {
      token,
      body: { effectiveDate: 'soon', coverageSlug: 'gold', ownerLastnme: 'X' },
    });
    expect(change.status).toBe(400);
    expect(change.body.errors.map((error: { path: string; message: string }) => `${error.path}: ${error.message}`).sort()).toEqual([
      expect.stringMatching(/^coverageSlug: is not a plan/),
      expect.stringMatching(/^effectiveDate: /),
      'ownerLastnme: is not a field of this request; did you mean "ownerLastname"?',
    ]);
    const renewal = await service.request('POST', `/api/v1/policy/${policy.body.number}/renewal`, {
      token,
      body: { coverageSlug: 'gold', numbr: 5 },
    });
    expect(renewal.status).toBe(400);
    expect(renewal.body.errors).toEqual([
      { path: 'numbr', message: 'is not a field of this request; did you mean "number"?' },
      { path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' },
    ]);
    const reinstatement = await service.request('POST', `/api/v1/policy/${policy.body.number}/reinstatement`, {
      token,
      body: { reason: 'x' },
    });
    expect(reinstatement.status).toBe(400);
    expect(reinstatement.body.errors).toEqual([{ path: 'reason', message: 'is not a field of this request' }]);
    // GraphQL refuses unknown input fields itself (validation), and judges the slug with the other rules.
    const graphqlBad = await service.graphql(
      'mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number } }',
      { input: { ...withoutPet, cvc: '12x', coverageSlug: 'gold' } },
      token,
    );
    expect(graphqlBad.body.errors[0].extensions.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'coverageSlug',
      'cvc',
      'petName',
    ]);
  });
});
