import { ReferenceKind } from '@mikro-orm/core';
import { assertInputObjectType, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { QUOTED_FIELDS, REQUIRED_UNLESS_QUOTED } from '../../src/policies/policy.input.js';
import { CHARGE_WRITE, POLICY_WRITE, TRANSACTION_WRITE } from '../../src/policies/policy.writes.js';
import { addDays, todayUtc } from '../../src/values/calendar-date.js';
import { graphql, request } from '../support/http.js';
import { entityMetadata } from '../support/entity-metadata.js';
import { everyField, everyInputField, mismatches, storedRow } from '../support/round-trip.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Issue 26 item 2: a policy created with every field of CreatePolicyInput, through REST and
 * GraphQL, is read back with every field of Policy, and its row holds each value in the column
 * its write map names. Both the body and the selection are built from the schema, so a field
 * a policy gains is written and read back here with no edit: forgetting its column in the write
 * map (policy.writes.ts), its migration, or its place in the REST answer fails this test. Each
 * text field gets a text no other field has, so a value stored one column off cannot pass.
 */
describe('a policy written and read back, field by field', () => {
  const service = useTestService();
  let schema: GraphQLSchema;
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    schema = await buildServiceSchema();
    ({ token, organizationId } = await createRootOrganization(service));
  });

  /** Fields of the create that are not the policy's: validated and dropped, or shown as `organization`. */
  const NOT_READ_BACK = ['cvc', 'organizationId', 'quoteId'];
  /** The policy's own fields (neither quoted nor validated and dropped): what issuing takes besides the quote, what a renewal copies. */
  const ownFields = () =>
    Object.keys(everyInputField(schema, 'CreatePolicyInput', { number: 1 }, { leftOut: [...NOT_READ_BACK, ...QUOTED_FIELDS] }));

  /** A create body with every field: values where the rules need them, a distinct text for every other (a new one too). */
  const createBody = (number: number) =>
    everyInputField(
      schema,
      'CreatePolicyInput',
      {
        number,
        cvc: '123',
        organizationId,
        ownerDOB: '1981-02-03',
        petDOB: '2019-04-05',
        effectiveDate: '2026-01-31',
        expirationDate: '2026-05-15',
        coverageSlug: 'accident-illness-plus',
      },
      { leftOut: ['quoteId'] },
    );

  /** What a read shows of a body: every field as sent, the organization by its id. */
  const shown = (body: Record<string, unknown>) => ({
    ...Object.fromEntries(Object.entries(body).filter(([field]) => !NOT_READ_BACK.includes(field))),
    organization: { id: organizationId },
  });

  const readThroughGraphql = async (number: number) => {
    const read = await graphql(
      service.url,
      `query ($n: SafeInt!) { policy(number: $n) { ${everyField(schema, 'Policy')} } }`,
      { n: number },
      token,
    );
    expect(read.body.errors).toBeUndefined();
    return read.body.data.policy as Record<string, unknown>;
  };
  const readThroughRest = async (number: number) => {
    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.status, read.text).toBe(200);
    return read.body as Record<string, unknown>;
  };

  /** The row, by property of the write map: every written property, the body's as sent. */
  const expectStored = async (policy: Record<string, unknown>, body: Record<string, unknown>) => {
    const serverMade = { id: policy.id, organizationId, createdBySub: 'alice', renewalOfId: null, coverage: policy.coverage };
    const expected = Object.fromEntries(
      Object.keys(POLICY_WRITE).map((name) => [
        name,
        Object.hasOwn(serverMade, name) ? serverMade[name as keyof typeof serverMade] : body[name],
      ]),
    );
    expect(await storedRow(service, 'Policy', POLICY_WRITE, policy.id as string)).toEqual(expected);
  };

  it('each write map sends every property to the column its entity maps it to', async () => {
    const metadata = await entityMetadata();
    const maps = [
      ['Policy', POLICY_WRITE],
      ['Charge', CHARGE_WRITE],
      ['PolicyTransaction', TRANSACTION_WRITE],
    ] as const;
    for (const [entity, map] of maps) {
      const meta = metadata.find(entity)!;
      for (const [name, { column }] of Object.entries(map)) {
        // The parent reference is written as its id (`policyId`, `organizationId`).
        const property = meta.properties[name] ?? meta.properties[name.replace(/Id$/, '')];
        expect(property, `${entity}.${name}`).toBeDefined();
        expect(property.kind === ReferenceKind.SCALAR || property.kind === ReferenceKind.MANY_TO_ONE, `${entity}.${name}`).toBe(true);
        expect(property.fieldNames, `${entity}.${name}`).toEqual([column]);
      }
    }
  });

  it('stores and answers every field of a create through REST, on REST, GraphQL and in the row', async () => {
    const body = createBody(8_000_000_123);
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body });
    expect(created.status, created.text).toBe(200);
    expect(mismatches(shown(body), created.body)).toEqual([]);
    const policy = await readThroughGraphql(body.number as number);
    expect(mismatches(shown(body), policy)).toEqual([]);
    expect(mismatches(shown(body), await readThroughRest(body.number as number))).toEqual([]);
    await expectStored(policy, body);

    expect(policy.coverage).toEqual({
      slug: 'accident-illness-plus',
      name: 'Accident & Illness Plus',
      deductible: 25000,
      reimbursementRate: 0.9,
      annualLimit: 1500000,
      monthlyPremium: 4200,
      currency: 'USD',
    });
    // The create's answer (built from the values written, nothing read back) is what is stored.
    const charges = policy.charges as Array<Record<string, unknown>>;
    expect(charges).toEqual(created.body.charges);
    expect(charges.map((charge) => [charge.periodStart, charge.periodEnd, charge.dueDate, charge.amount])).toEqual([
      ['2026-01-31', '2026-02-28', '2026-01-31', 4200],
      ['2026-02-28', '2026-03-31', '2026-02-28', 4200],
      ['2026-03-31', '2026-04-30', '2026-03-31', 4200],
      ['2026-04-30', '2026-05-15', '2026-04-30', 2032],
    ]);
    const [transaction] = await service.sql(
      `select id, type, to_char(effective_date, 'YYYY-MM-DD') as effective_date, created_by_sub, changes from policy_transaction where policy_id = $1`,
      [policy.id],
    );
    expect(transaction).toEqual({
      id: charges[0].transactionId,
      type: 'issuance',
      effective_date: body.effectiveDate,
      created_by_sub: 'alice',
      changes: {},
    });
    const rows = await service.sql(
      `select id, policy_id, transaction_id, sequence, type, to_char(period_start, 'YYYY-MM-DD') as period_start, to_char(period_end, 'YYYY-MM-DD') as period_end,
              to_char(due_date, 'YYYY-MM-DD') as due_date, amount, currency, status, reverses from charge where policy_id = $1 order by sequence`,
      [policy.id],
    );
    expect(rows).toEqual(
      charges.map((charge, sequence) => ({
        id: charge.id,
        policy_id: policy.id,
        transaction_id: charge.transactionId,
        sequence,
        type: charge.type,
        period_start: charge.periodStart,
        period_end: charge.periodEnd,
        due_date: charge.dueDate,
        amount: charge.amount,
        currency: charge.currency,
        status: charge.status,
        reverses: null,
      })),
    );
  });

  it('stores and answers every field of a create through GraphQL, on GraphQL, REST and in the row', async () => {
    const body = createBody(8_000_000_124);
    const created = await graphql(
      service.url,
      `mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { ${everyField(schema, 'Policy')} } }`,
      { input: body },
      token,
    );
    expect(created.body.errors).toBeUndefined();
    expect(mismatches(shown(body), created.body.data.createPolicy)).toEqual([]);
    const policy = await readThroughGraphql(body.number as number);
    expect(mismatches(shown(body), policy)).toEqual([]);
    expect(mismatches(shown(body), await readThroughRest(body.number as number))).toEqual([]);
    await expectStored(policy, body);
  });

  it("issues a quote with the policy's own fields from the body and the quoted ones from the quote", async () => {
    const quoteBody = everyInputField(schema, 'CreateQuoteInput', {
      organizationId,
      ownerDOB: '1982-03-04',
      petDOB: '2020-05-06',
      effectiveDate: '2026-02-01',
      expirationDate: '2027-02-01',
      coverageSlug: 'accident-only',
    });
    const quote = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody });
    expect(quote.status, quote.text).toBe(200);
    const own = everyInputField(
      schema,
      'CreatePolicyInput',
      { number: 8_000_000_125, cvc: '4321' },
      { round: 2, leftOut: ['quoteId', ...QUOTED_FIELDS] },
    );
    const issued = await request(service.url, 'POST', '/api/v1/policy', { token, body: { quoteId: quote.body.id, ...own } });
    expect(issued.status, issued.text).toBe(200);
    const policy = await readThroughGraphql(own.number as number);
    expect(mismatches(shown({ ...quoteBody, ...own }), policy)).toEqual([]);
    await expectStored(policy, { ...quoteBody, ...own });
  });

  it("renews with the predecessor's own fields, but its number and internalID, which name the old policy", async () => {
    // A term that ended ten days ago: inside the renewal's window (until POLICY_RENEWAL_LATE_DAYS, 30, after it).
    const today = todayUtc();
    const body: Record<string, unknown> = {
      ...createBody(8_000_000_126),
      effectiveDate: addDays(today, -375),
      expirationDate: addDays(today, -10),
    };
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body })).status).toBe(200);
    const renewed = await request(service.url, 'POST', `/api/v1/policy/${body.number}/renewal`, { token, body: {} });
    expect(renewed.status, renewed.text).toBe(200);
    const successor = await readThroughGraphql(renewed.body.number as number);
    const copied = Object.fromEntries(ownFields().map((field) => [field, body[field]]));
    expect(mismatches({ ...copied, number: renewed.body.number, internalID: null }, successor)).toEqual([]);
    expect(successor.number).not.toBe(body.number);
  });

  it('takes the next free number when none is sent, and stores every optional field not sent as null', async () => {
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: {
        ownerFirstname: 'A',
        ownerLastname: 'B',
        petName: 'C',
        effectiveDate: '2026-01-01',
        expirationDate: '2027-01-01',
        coverageSlug: 'accident-only',
      },
    });
    expect(created.status, created.text).toBe(200);
    const optional = Object.keys(assertInputObjectType(schema.getType('CreatePolicyInput')).getFields()).filter(
      (field) => ![...REQUIRED_UNLESS_QUOTED, 'number', ...NOT_READ_BACK].includes(field),
    );
    expect(optional).toEqual(expect.arrayContaining(['internalID', 'ownerDOB', 'petDOB']));
    expect(mismatches(Object.fromEntries(optional.map((field) => [field, null])), created.body)).toEqual([]);
    const stored = await storedRow(service, 'Policy', POLICY_WRITE, created.body.id as string);
    expect(mismatches(Object.fromEntries(optional.map((field) => [field, null])), stored)).toEqual([]);
    expect(stored.number).toBe(created.body.number);
  });
});
