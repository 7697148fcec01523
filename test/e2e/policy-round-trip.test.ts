import { ReferenceKind } from '@mikro-orm/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_WRITE, POLICY_WRITE, TRANSACTION_WRITE } from '../../src/policies/policy.writes.js';
import { graphql, request } from '../support/http.js';
import { entityMetadata } from '../support/entity-metadata.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Issue 23 item 8: the policy's writes go through write column maps (policy.writes.ts). Every
 * field written is read back as itself, with a distinct value per text and date column so that
 * a value stored one column off cannot pass; and each map names the column its entity maps.
 */
describe('a policy written and read back, field by field', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

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

  it('stores and answers every field of the create as sent, on REST, GraphQL and in the rows', async () => {
    const body = {
      number: 8_000_000_123,
      internalID: 'ext-round-trip',
      organizationId,
      ownerFirstname: 'Firstname-Ω',
      ownerLastname: 'Lastname-🐾',
      ownerDOB: '1981-02-03',
      petName: 'Petname',
      petDOB: '2019-04-05',
      effectiveDate: '2026-01-31',
      expirationDate: '2026-05-15',
      coverageSlug: 'accident-illness-plus',
      cvc: '123',
    };
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body });
    expect(created.status, created.text).toBe(200);
    const { cvc: _cvc, organizationId: _organizationId, ...fields } = body;
    expect(created.body).toMatchObject(fields);

    const read = await graphql(
      service.url,
      `query ($n: SafeInt!) { policy(number: $n) {
        id number internalID ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate coverageSlug
        coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
        charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }
        organization { id }
      } }`,
      { n: body.number },
      token,
    );
    expect(read.body.errors).toBeUndefined();
    const policy = read.body.data.policy;
    expect(policy).toMatchObject({ ...fields, organization: { id: organizationId } });
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
    expect(policy.charges).toEqual(created.body.charges);
    expect(
      policy.charges.map((charge: Record<string, unknown>) => [charge.periodStart, charge.periodEnd, charge.dueDate, charge.amount]),
    ).toEqual([
      ['2026-01-31', '2026-02-28', '2026-01-31', 4200],
      ['2026-02-28', '2026-03-31', '2026-02-28', 4200],
      ['2026-03-31', '2026-04-30', '2026-03-31', 4200],
      ['2026-04-30', '2026-05-15', '2026-04-30', 2032],
    ]);

    // The rows, column by column: each holds its own field.
    const [row] = await service.sql(
      `select id, number::text, internal_id, organization_id, owner_firstname, owner_lastname, to_char(owner_dob, 'YYYY-MM-DD') as owner_dob,
              pet_name, to_char(pet_dob, 'YYYY-MM-DD') as pet_dob, to_char(effective_date, 'YYYY-MM-DD') as effective_date,
              to_char(expiration_date, 'YYYY-MM-DD') as expiration_date, coverage_slug, coverage, created_by_sub
       from policy where number = $1`,
      [body.number],
    );
    expect(row).toEqual({
      id: policy.id,
      number: String(body.number),
      internal_id: body.internalID,
      organization_id: organizationId,
      owner_firstname: body.ownerFirstname,
      owner_lastname: body.ownerLastname,
      owner_dob: body.ownerDOB,
      pet_name: body.petName,
      pet_dob: body.petDOB,
      effective_date: body.effectiveDate,
      expiration_date: body.expirationDate,
      coverage_slug: body.coverageSlug,
      coverage: policy.coverage,
      created_by_sub: 'alice',
    });
    const [transaction] = await service.sql(
      `select id, type, to_char(effective_date, 'YYYY-MM-DD') as effective_date, created_by_sub, changes from policy_transaction where policy_id = $1`,
      [policy.id],
    );
    expect(transaction).toEqual({
      id: policy.charges[0].transactionId,
      type: 'issuance',
      effective_date: body.effectiveDate,
      created_by_sub: 'alice',
      changes: {},
    });
    const charges = await service.sql(
      `select id, policy_id, transaction_id, sequence, type, to_char(period_start, 'YYYY-MM-DD') as period_start, to_char(period_end, 'YYYY-MM-DD') as period_end,
              to_char(due_date, 'YYYY-MM-DD') as due_date, amount, currency, status, reverses from charge where policy_id = $1 order by sequence`,
      [policy.id],
    );
    expect(charges).toEqual(
      policy.charges.map((charge: Record<string, unknown>, sequence: number) => ({
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

  it('takes the next free number when none is sent, and stores the optional fields as null', async () => {
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
    expect(created.body).toMatchObject({ internalID: null, ownerDOB: null, petDOB: null });
    const [row] = await service.sql('select number::text, internal_id, owner_dob, pet_dob from policy where number = $1', [
      created.body.number,
    ]);
    expect(row).toEqual({ number: String(created.body.number), internal_id: null, owner_dob: null, pet_dob: null });
  });
});
