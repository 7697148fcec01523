import { beforeAll, describe, expect, it } from 'vitest';
import { cancellationCharges } from '../../src/policies/ledger/cancellation-charges.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { CANCEL, REINSTATE, day, policyLifecycle } from '../support/policy-lifecycle.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/** accident-illness-plus: 4200 cents a month. */
const PLUS = 4200;

/**
 * Contract section 14, "Cancel" and "Reinstate", over REST and GraphQL: the credits, fees and
 * reversals, status and reads. Refusals, races, replays and reach, through the operation core:
 * test/in-process/policy-cancellation.
 */
describe('cancelling and reinstating a policy', () => {
  const service = useTestService();
  let token: string;
  const { policy, cancel, reinstate, ledgerCount } = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 7000,
    coverageSlug: 'accident-illness-plus',
  });

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('cancels pro_rata over REST: a credit per running period, status cancelled, the transaction, the event, and reads agree', async () => {
    const { number, effectiveDate, expirationDate } = await policy(-100);
    const on = day(-5);
    const response = await cancel(number, { effectiveDate: on, reason: 'non_payment' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);

    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' });
    const expected = cancellationCharges({
      schedule,
      ledger: schedule,
      effectiveDate: on,
      expirationDate,
      method: 'pro_rata',
      shortRatePercent: 10,
    });
    const policyRead = response.body;
    expect(policyRead.status).toBe('cancelled');
    expect(policyRead.cancellation).toEqual({
      effectiveDate: on,
      reason: 'non_payment',
      method: 'pro_rata',
      credited: expected.credited,
      fee: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const credits = policyRead.charges.filter((charge: { type: string }) => charge.type === 'credit');
    expect(
      credits.map(({ periodStart, periodEnd, dueDate, amount }: Record<string, unknown>) => ({
        type: 'credit',
        periodStart,
        periodEnd,
        dueDate,
        amount,
      })),
    ).toEqual(expected.lines);
    expect(sumOfAmounts(policyRead.charges)).toBe(PLUS * 12 + expected.credited);
    expect(new Set(credits.map((charge: { transactionId: string }) => charge.transactionId)).size).toBe(1);

    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.body).toEqual(policyRead);
    const transactions = await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(transactions.body.data.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance', 'cancellation']);
    expect(transactions.body.data[1]).toMatchObject({
      id: credits[0].transactionId,
      effectiveDate: on,
      createdBy: 'alice',
      changes: { cancellation: { from: null, to: { effectiveDate: on, reason: 'non_payment', method: 'pro_rata' } } },
    });
    const listed = async (status: string) =>
      (await request(service.url, 'GET', `/api/v1/policy?status=${status}&limit=100`, { token })).body.data.map(
        (item: { number: number }) => item.number,
      );
    expect(await listed('cancelled')).toContain(number);
    expect(await listed('active')).not.toContain(number);
    const events = await service.sql<{ data: { object: { number: number; status: string } } }>(
      "select data from event where type = 'policy.cancelled' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    expect(events.map((event) => event.data.object.status)).toEqual(['cancelled']);
    // The answer and the event are made from what was read and written; a read agrees with both
    // (the event's object is the read without its charges: test/e2e/policy-events).
    const { charges: _charges, ...withoutCharges } = read.body;
    expect(events[0].data.object).toEqual(withoutCharges);
  });

  it('keeps a future cancellation on the policy while it stays active', async () => {
    const { number } = await policy(-10);
    const response = await cancel(number, { effectiveDate: day(20), reason: 'underwriting' });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('active');
    expect(response.body.cancellation).toMatchObject({ effectiveDate: day(20), reason: 'underwriting', method: 'pro_rata' });
    const active = await request(service.url, 'GET', `/api/v1/policy?status=active&limit=100`, { token });
    expect(active.body.data.map((item: { number: number }) => item.number)).toContain(number);
    // One is scheduled: another is refused.
    const again = await cancel(number, { effectiveDate: day(25), reason: 'other' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE');
  });

  it('cancels short_rate through GraphQL: the credits and a fee of 10% of them, due on the date', async () => {
    const { number, effectiveDate, expirationDate } = await policy(-40);
    const on = day(-3);
    const response = await graphql(service.url, CANCEL, { number, input: { effectiveDate: on, reason: 'insured_request' } }, token);
    expect(response.body.errors).toBeUndefined();
    const answer = response.body.data.cancelPolicy;
    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' });
    const expected = cancellationCharges({
      schedule,
      ledger: schedule,
      effectiveDate: on,
      expirationDate,
      method: 'short_rate',
      shortRatePercent: 10,
    });
    expect(answer.cancellation).toMatchObject({
      method: 'short_rate',
      credited: expected.credited,
      fee: Math.round(-expected.credited / 10),
    });
    expect(answer.charges.filter((charge: { type: string }) => charge.type === 'fee')).toEqual([
      expect.objectContaining({ amount: expected.fee, dueDate: on, periodStart: on, periodEnd: expirationDate }),
    ]);
    expect(sumOfAmounts(answer.charges)).toBe(PLUS * 12 + expected.credited + expected.fee);
  });

  it('free_look on day 10 credits everything (flat); on day 20 it is 400 on reason and writes nothing', async () => {
    const early = await policy(-10);
    const flat = await cancel(early.number, { effectiveDate: day(0), reason: 'free_look' });
    expect(flat.status, JSON.stringify(flat.body)).toBe(200);
    expect(flat.body.cancellation).toMatchObject({ method: 'flat', credited: -PLUS * 12, fee: 0 });
    expect(sumOfAmounts(flat.body.charges)).toBe(0);

    const late = await policy(-20);
    const before = await ledgerCount(late.number);
    const refused = await cancel(late.number, { effectiveDate: day(0), reason: 'free_look' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'reason', message: expect.stringContaining('15 days') }]);
    expect(await ledgerCount(late.number)).toBe(before);
  });

  it('reinstates over REST: a reversal of each charge of the cancellation, the sum as before, no cancellation, the event', async () => {
    const { number } = await policy(-60);
    const before = sumOfAmounts((await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body.charges);
    const cancelled = await cancel(number, { effectiveDate: day(-30), reason: 'insured_request' });
    expect(cancelled.status).toBe(200);
    const added = cancelled.body.charges.filter((charge: { type: string }) => charge.type !== 'premium');

    const response = await reinstate(number);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.cancellation).toBeNull();
    expect(response.body.status).toBe('active');
    expect(sumOfAmounts(response.body.charges)).toBe(before);
    const reversals = response.body.charges.filter((charge: { type: string }) => charge.type === 'reversal');
    expect(reversals.map(({ reverses, amount }: { reverses: string; amount: number }) => [reverses, amount])).toEqual(
      added.map(({ id, amount }: { id: string; amount: number }) => [id, -amount]),
    );
    const transactions = await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(transactions.body.data.map((transaction: { type: string }) => transaction.type)).toEqual([
      'issuance',
      'cancellation',
      'reinstatement',
    ]);
    expect(transactions.body.data[2]).toMatchObject({ id: reversals[0].transactionId, effectiveDate: day(-30) });
    const events = await service.sql<{ data: { object: object } }>(
      "select data from event where type = 'policy.reinstated' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    expect(events).toHaveLength(1);
    const read = (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
    expect(response.body).toEqual(read);
    const { charges: _charges, ...withoutCharges } = read;
    expect(events[0].data.object).toEqual(withoutCharges);
    // Nothing left to undo.
    const again = await reinstate(number);
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('reinstates through GraphQL a future cancellation; refuses one 31 days old and one for fraud', async () => {
    const future = await policy(-10);
    await cancel(future.number, { effectiveDate: day(10), reason: 'other' });
    const response = await graphql(service.url, REINSTATE, { number: future.number, input: {} }, token);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.reinstatePolicy).toMatchObject({ status: 'active', cancellation: null });

    const old = await policy(-100);
    expect((await cancel(old.number, { effectiveDate: day(-31), reason: 'other' })).status).toBe(200);
    const tooLate = await graphql(service.url, REINSTATE, { number: old.number, input: {} }, token);
    expect(tooLate.body.errors[0].extensions.code).toBe('INVALID_STATE');
    expect((await reinstate(old.number)).status).toBe(409);

    const fraud = await policy(-10);
    expect((await cancel(fraud.number, { effectiveDate: day(5), reason: 'fraud' })).status).toBe(200);
    expect((await reinstate(fraud.number)).status).toBe(409);
  });
});
