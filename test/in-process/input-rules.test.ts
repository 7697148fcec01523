import { beforeAll, describe, expect, it } from 'vitest';
import { todayUtc } from '../../src/values/calendar-date.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

// Two days ahead, so a run that crosses midnight UTC still sends a date in the future.
const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const today = todayUtc();
const owner = (fields: Record<string, unknown> = {}) => ({ firstname: 'Ada', lastname: 'Lovelace', ...fields });
const account = (fields: Record<string, unknown> = {}) => ({ routing: '110000000', account: '000123456789', ...fields });

type Case = [rule: string, passing: Record<string, unknown>, failing: Record<string, unknown>, path: string];

/**
 * Contract section 4: one passing and one failing body per rule, and the path the failure names,
 * on REST and GraphQL, through the operation core in process.
 */
const ORGANIZATION_RULES: Case[] = [
  ['legalName is required', { legalName: 'A' }, { legalName: undefined }, 'legalName'],
  ['legalName is not blank', { legalName: 'A' }, { legalName: '   ' }, 'legalName'],
  ['legalType is required', { legalType: 'llc' }, { legalType: '' }, 'legalType'],
  ['taxId is required', { taxId: '1' }, { taxId: undefined }, 'taxId'],
  ['strings are at most 255 characters', { name: 'n'.repeat(255) }, { name: 'n'.repeat(256) }, 'name'],
  ['length counts characters, not UTF-16 units', { legalName: '🐾'.repeat(255) }, { legalName: '🐾'.repeat(256) }, 'legalName'],
  ['description is at most 2,000 characters', { description: 'd'.repeat(2000) }, { description: 'd'.repeat(2001) }, 'description'],
  ['email is a valid address', { email: 'a@b.example' }, { email: 'a@' }, 'email'],
  ['logo is an absolute http(s) URL', { logo: 'https://x.example/l.png' }, { logo: 'ftp://x.example/l.png' }, 'logo'],
  ['website is an absolute http(s) URL', { website: 'http://x.example' }, { website: 'x.example' }, 'website'],
  ['phone is 7-20 digits, spaces and +-().', { phone: '+1 (512) 555-01.00' }, { phone: '555-CALL-NOW' }, 'phone'],
  ['phone is at least 7 characters', { phone: '5550100' }, { phone: '555010' }, 'phone'],
  ['descriptor is at most 22 characters', { descriptor: 'D'.repeat(22) }, { descriptor: 'D'.repeat(23) }, 'descriptor'],
  ['at most 10 bank accounts', { bankAccounts: Array(10).fill(account()) }, { bankAccounts: Array(11).fill(account()) }, 'bankAccounts'],
  ['at most 25 owners', { owners: Array(25).fill(owner({ ownership: 4 })) }, { owners: Array(26).fill(owner({ ownership: 1 })) }, 'owners'],
  [
    'routing is 4-34 letters or digits',
    { bankAccounts: [account({ routing: 'AB12' })] },
    { bankAccounts: [account({ routing: '12-3' })] },
    'bankAccounts[0].routing',
  ],
  ['routing is required', { bankAccounts: [account()] }, { bankAccounts: [account({ routing: undefined })] }, 'bankAccounts[0].routing'],
  [
    'account is 4-34 letters or digits',
    { bankAccounts: [account({ account: 'X'.repeat(34) })] },
    { bankAccounts: [account({ account: 'X'.repeat(35) })] },
    'bankAccounts[0].account',
  ],
  ['account is required', { bankAccounts: [account()] }, { bankAccounts: [account({ account: undefined })] }, 'bankAccounts[0].account'],
  ['owner firstname is required', { owners: [owner()] }, { owners: [owner({ firstname: '' })] }, 'owners[0].firstname'],
  ['owner lastname is required', { owners: [owner()] }, { owners: [owner({ lastname: undefined })] }, 'owners[0].lastname'],
  [
    'owner birthdate is a real date',
    { owners: [owner({ birthdate: '2000-02-29' })] },
    { owners: [owner({ birthdate: '2001-02-29' })] },
    'owners[0].birthdate',
  ],
  [
    'owner birthdate is not in the future',
    { owners: [owner({ birthdate: today })] },
    { owners: [owner({ birthdate: tomorrow })] },
    'owners[0].birthdate',
  ],
  ['ownership is more than 0', { owners: [owner({ ownership: 0.01 })] }, { owners: [owner({ ownership: 0 })] }, 'owners[0].ownership'],
  ['ownership is at most 100', { owners: [owner({ ownership: 100 })] }, { owners: [owner({ ownership: 100.5 })] }, 'owners[0].ownership'],
  [
    "owners' ownership adds up to at most 100",
    { owners: [owner({ ownership: 33.33 }), owner({ ownership: 33.33 }), owner({ ownership: 33.34 })] },
    { owners: [owner({ ownership: 60 }), owner({ ownership: 41 })] },
    'owners',
  ],
  [
    'owner email is a valid address',
    { owners: [owner({ email: 'o@x.example' })] },
    { owners: [owner({ email: 'nope' })] },
    'owners[0].email',
  ],
  [
    'address fields are at most 255 characters',
    { address: { city: 'c'.repeat(255) } },
    { address: { city: 'c'.repeat(256) } },
    'address.city',
  ],
  ['text rejects the NUL character', { name: 'a\u0001b' }, { name: 'a\u0000b' }, 'name'],
  ['text keeps emoji and other Unicode', { name: 'Café 🐶 東京' }, { name: 'Café 🐶 東京\u0000' }, 'name'],
  ['text is valid Unicode (no lone surrogates)', { name: '\ud83d\udc3e' }, { name: 'a\ud800b' }, 'name'],
  ['an email with a lone surrogate is refused, not a crash', { email: 'a@b.example' }, { email: '\ud800' }, 'email'],
];

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Contract section 5. */
const POLICY_RULES: Case[] = [
  ['number is at least 1', { number: 1_000_001 }, { number: 0 }, 'number'],
  ['number is at most 2^53 - 1', { number: 9007199254740991 }, { number: 9007199254740992 }, 'number'],
  ['number is an integer', { number: 1_000_002 }, { number: 1.5 }, 'number'],
  ['ownerFirstname is required', { ownerFirstname: 'R' }, { ownerFirstname: undefined }, 'ownerFirstname'],
  ['ownerLastname is required', { ownerLastname: 'D' }, { ownerLastname: ' ' }, 'ownerLastname'],
  ['petName is required', { petName: 'B' }, { petName: '' }, 'petName'],
  ['effectiveDate is required', { effectiveDate: '2026-01-01' }, { effectiveDate: undefined }, 'effectiveDate'],
  ['expirationDate is required', { expirationDate: '2027-01-01' }, { expirationDate: undefined }, 'expirationDate'],
  ['coverageSlug is required', { coverageSlug: 'accident-only' }, { coverageSlug: undefined }, 'coverageSlug'],
  [
    'coverageSlug names a plan of the catalog',
    { coverageSlug: 'accident-illness-unlimited' },
    { coverageSlug: 'platinum' },
    'coverageSlug',
  ],
  ['dates are strict YYYY-MM-DD', { effectiveDate: '2026-03-01' }, { effectiveDate: '2026-3-1' }, 'effectiveDate'],
  [
    'dates are real calendar dates',
    { effectiveDate: '2024-02-29', expirationDate: '2025-02-28' },
    { effectiveDate: '2025-02-29' },
    'effectiveDate',
  ],
  ['expirationDate is after effectiveDate', { expirationDate: '2026-01-02' }, { expirationDate: '2026-01-01' }, 'expirationDate'],
  ['the term is at most 5 years', { expirationDate: '2031-01-01' }, { expirationDate: '2031-01-02' }, 'expirationDate'],
  ['ownerDOB is a real date', { ownerDOB: '1990-12-31' }, { ownerDOB: '1990-12-32' }, 'ownerDOB'],
  ['ownerDOB is not in the future', { ownerDOB: today }, { ownerDOB: future(2) }, 'ownerDOB'],
  [
    'petDOB is not in the future',
    { petDOB: '2020-01-01' },
    { petDOB: future(2), effectiveDate: future(3), expirationDate: future(40) },
    'petDOB',
  ],
  ['petDOB is not after effectiveDate', { petDOB: '2026-01-01' }, { petDOB: '2026-01-02', effectiveDate: '2026-01-01' }, 'petDOB'],
  ['cvc is 3 digits', { cvc: '123' }, { cvc: '12' }, 'cvc'],
  ['cvc is 4 digits', { cvc: '1234' }, { cvc: '12345' }, 'cvc'],
  ['cvc is only digits', { cvc: '007' }, { cvc: '12a' }, 'cvc'],
  ['cvc is a string', { cvc: '999' }, { cvc: 999 }, 'cvc'],
];

/** Contract section 14: a quote takes the policy create's body and rules, without number, cvc and internalID. */
const QUOTE_RULES: Case[] = POLICY_RULES.filter(([, , , path]) => !['number', 'cvc', 'internalID'].includes(path));

describe('input rules', () => {
  const service = useInProcessService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const rows = async () =>
    Number(
      (
        await service.sql<{ n: string }>(
          'select (select count(*) from organization) + (select count(*) from policy) + (select count(*) from quote) as n',
        )
      )[0].n,
    );

  describe.each([
    ['organization', '/api/v1/organization', 'CreateOrganizationInput', 'createOrganization { id }', ORGANIZATION_RULES, organizationBody],
    ['policy', '/api/v1/policy', 'CreatePolicyInput', 'createPolicy { number }', POLICY_RULES, policyBody],
    ['quote', '/api/v1/quote', 'CreateQuoteInput', 'createQuote { id }', QUOTE_RULES, policyBody],
  ] as const)('%s', (_kind, path, inputType, selection, rules, body) => {
    it.each(rules)('%s (REST)', async (_rule, passing, failing, errorPath) => {
      const ok = await service.request('POST', path, { token, body: body(passing) });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      const before = await rows();
      const refused = await service.request('POST', path, { token, body: body(failing) });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('BAD_USER_INPUT');
      expect(refused.body.errors.map((error: { path: string }) => error.path)).toContain(errorPath);
      expect(await rows()).toBe(before);
    });

    it.each(rules)('%s (GraphQL)', async (_rule, passing, failing, errorPath) => {
      const [field, fields] = selection.split(' { ');
      const mutation = `mutation ($input: ${inputType}!) { ${field}(input: $input) { ${fields} }`;
      const strip = (value: Record<string, unknown>) => (value.number !== undefined ? { ...value, number: undefined } : value);
      const ok = await service.graphql(mutation, { input: body(strip(passing)) }, token);
      expect(ok.body.errors, JSON.stringify(ok.body)).toBeUndefined();
      const refused = await service.graphql(mutation, { input: body(failing) }, token);
      expect(refused.body.data ?? null).toBeNull();
      expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(refused.body.errors[0].extensions.errors.map((error: { path: string }) => error.path)).toContain(errorPath);
    });
  });

  it('reports three broken rules at once, each with its path', async () => {
    const response = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({
        email: 'not-an-email',
        address: { city: 'x'.repeat(300) },
        owners: [owner(), owner({ ownership: 150 })],
      }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'email', message: 'must be a valid email address' },
      { path: 'address.city', message: 'must be at most 255 characters' },
      { path: 'owners', message: 'ownership of all owners must add up to at most 100' },
      { path: 'owners[1].ownership', message: 'must be a percentage greater than 0 and at most 100' },
    ]);
  });

  it('reports type errors and broken rules together', async () => {
    const response = await service.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ ownerFirstname: 42, cvc: '1', expirationDate: '2025-01-01' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'ownerFirstname', message: 'must be a string' },
        { path: 'cvc', message: 'must be 3 or 4 digits' },
        { path: 'expirationDate', message: 'must be after effectiveDate' },
      ]),
    );
  });
});
