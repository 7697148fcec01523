import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { sweepPolicies } from '../../src/policies/billing-sweep.js';
import { cancellationCharges } from '../../src/policies/ledger/cancellation-charges.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addDays, todayUtc } from '../../src/values/calendar-date.js';
import { request } from '../support/http.js';
import { moreSweeps, until } from '../support/billing-sweep.js';
import { policyLifecycle } from '../support/policy-lifecycle.js';
import { clientOf, createRootOrganization, startTestService, useTestService, type TestService } from '../support/test-service.js';

/** accident-illness-plus: 4200 cents a month; accident-illness-basic: 2900. */
const PLUS = 4200;

/**
 * Contract section 19, "Lapse for non-payment": the billing sweep on the job queue, with real
 * services on one database. Instance A takes the requests and takes no part in the sweep
 * (BILLING_SWEEP_SECONDS=0), so the policies a test needs in a given state are made before any
 * sweep runs; instances B and C sweep every second. Nothing waits on a clock: every wait is for
 * a state, or for sweeps that completed (pg-boss's job rows), with generous limits.
 */
describe('the billing sweep', () => {
  const lapse = { BILLING_LAPSE_DAYS: '30', WEBHOOK_DELIVERY: 'false' };
  const service = useTestService({ ...lapse, BILLING_SWEEP_SECONDS: '0' });
  const sweepers: TestService[] = [];
  let token: string;
  const lifecycle = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 39_000,
    coverageSlug: 'accident-illness-plus',
  });
  const read = async (number: number) => (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
  const pay = async (number: number, amount: number, reference: string) => {
    const paid = await request(service.url, 'POST', `/api/v1/policy/${number}/payments`, { token, body: { amount, reference } });
    expect(paid.status, paid.text).toBe(200);
    return paid.body;
  };
  const events = (number: number, type: string) =>
    service.sql<{ actor_sub: string; data: any }>(
      `select actor_sub, data from event where type = $1 and (data->'object'->>'number')::bigint = $2 order by seq`,
      [type, number],
    );
  const transactions = (number: number) =>
    service.sql<{ type: string; effective_date: string; created_by_sub: string }>(
      `select t.type, to_char(t.effective_date, 'YYYY-MM-DD') as effective_date, t.created_by_sub
       from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 order by t.seq`,
      [number],
    );

  // Made before any sweep runs.
  let unpaid: Awaited<ReturnType<typeof lifecycle.policy>>;
  let paidUp: Awaited<ReturnType<typeof lifecycle.policy>>;
  let toReinstate: Awaited<ReturnType<typeof lifecycle.policy>>;
  let behind: Awaited<ReturnType<typeof lifecycle.policy>>;
  let expired: Awaited<ReturnType<typeof lifecycle.policy>>;
  let reinstatedUnpaid: Awaited<ReturnType<typeof lifecycle.policy>>;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
    // 60 days ago, nothing paid: lapses 30 days after its first due date (its effectiveDate).
    unpaid = await lifecycle.policy(-60);
    // 60 days ago, everything due so far paid.
    paidUp = await lifecycle.policy(-60);
    await pay(paidUp.number, (await read(paidUp.number)).billing.billed, 'paid-up-1');
    // 50 days ago, nothing paid: lapses 20 days ago, within POLICY_REINSTATEMENT_DAYS.
    toReinstate = await lifecycle.policy(-50);
    // 20 days ago, nothing paid: past due (BILLING_GRACE_DAYS 15), lapsing only in 10 days.
    behind = await lifecycle.policy(-20, { coverageSlug: 'accident-illness-basic' });
    // A year from 400 days ago, ended 35 days ago, nothing paid: its lapse date lay in its term.
    expired = await lifecycle.policy(-400);
    // 50 days ago, nothing paid: lapses 20 days ago; reinstated with nothing paid.
    reinstatedUnpaid = await lifecycle.policy(-50);
    // Two instances that sweep every second, on A's database.
    for (let i = 0; i < 2; i++) {
      sweepers.push(await startTestService({ ...lapse, BILLING_SWEEP_SECONDS: '1' }, { sameDatabaseAs: service }));
    }
  });
  afterAll(async () => {
    for (const sweeper of sweepers) await sweeper.stop();
  });

  it('cancels a policy 60 days unpaid for non_payment (pro_rata), effective 30 days after its first due date, once, by system', async () => {
    const { number, effectiveDate, expirationDate } = unpaid;
    await until(async () => (await read(number)).status === 'cancelled', `policy ${number} lapsed`);
    // Later sweeps, of both instances, find it cancelled: nothing more is written.
    await moreSweeps(service, 3);

    const lapsedOn = addDays(effectiveDate, 30);
    const policy = await read(number);
    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' });
    const expected = cancellationCharges({
      schedule,
      ledger: schedule,
      effectiveDate: lapsedOn,
      expirationDate,
      method: 'pro_rata',
      shortRatePercent: 10,
    });
    expect(policy.cancellation).toMatchObject({
      effectiveDate: lapsedOn,
      reason: 'non_payment',
      method: 'pro_rata',
      credited: expected.credited,
      fee: 0,
    });
    expect(await transactions(number)).toEqual([
      { type: 'issuance', effective_date: effectiveDate, created_by_sub: 'alice' },
      { type: 'cancellation', effective_date: lapsedOn, created_by_sub: 'system' },
    ]);
    const cancelled = await events(number, 'policy.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].actor_sub).toBe('system');
    expect(cancelled[0].data.object).toMatchObject({ number, status: 'cancelled', cancellation: { reason: 'non_payment' } });
    // Over REST the transaction says who made it, and the event its actor.
    const listed = await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(listed.body.data.at(-1)).toMatchObject({ type: 'cancellation', effectiveDate: lapsedOn, createdBy: 'system' });
  });

  it('writes one cancellation when sweeps run at once: two instances on the queue, and two more outside it', async () => {
    const { number } = await lifecycle.policy(-60);
    const rules = loadConfig(service.env).policyRules;
    const outside = { database: service.database, rules, logger: createLogger('silent') };
    // Both instances sweep every second; these two run beside them, on no queue.
    const sweeps = await Promise.all([sweepPolicies(outside), sweepPolicies(outside)]);
    await until(async () => (await read(number)).status === 'cancelled', `policy ${number} lapsed`);
    await moreSweeps(service, 2);
    expect((await transactions(number)).map((transaction) => transaction.type)).toEqual(['issuance', 'cancellation']);
    expect(await events(number, 'policy.cancelled')).toHaveLength(1);
    // Of the two outside the queue, at most one lapsed it; the other found it done (or both did).
    expect(sweeps.reduce((sum, counts) => sum + counts.lapsed, 0)).toBeLessThanOrEqual(1);
    expect(sweeps.every((counts) => counts.failed === 0)).toBe(true);
  });

  it('keeps sweeping on the other instance when one stops', async () => {
    await sweepers.shift()!.stop();
    const { number } = await lifecycle.policy(-60);
    await until(async () => (await read(number)).status === 'cancelled', `policy ${number} lapsed by the instance left`);
    expect(await events(number, 'policy.cancelled')).toHaveLength(1);
  });

  it('leaves a policy paid up to date alone', async () => {
    await moreSweeps(service, 2);
    const policy = await read(paidUp.number);
    expect(policy).toMatchObject({ status: 'active', cancellation: null, version: 2 });
    expect(policy.billing).toMatchObject({ pastDue: 0, balance: 0, status: 'settled' });
    expect((await transactions(paidUp.number)).map((transaction) => transaction.type)).toEqual(['issuance']);
    expect(await events(paidUp.number, 'policy.past_due')).toEqual([]);
  });

  it('lapses a policy whose term has ended since its lapse date, as section 19 says (no "expired" refusal for the service)', async () => {
    const { number, effectiveDate } = expired;
    await until(async () => (await read(number)).cancellation !== null, `policy ${number} lapsed`);
    expect((await read(number)).cancellation).toMatchObject({ effectiveDate: addDays(effectiveDate, 30), reason: 'non_payment' });
    expect(await transactions(number)).toEqual([
      { type: 'issuance', effective_date: effectiveDate, created_by_sub: 'alice' },
      { type: 'cancellation', effective_date: addDays(effectiveDate, 30), created_by_sub: 'system' },
    ]);
  });

  it('writes each lapse once: one reinstated with nothing paid is not written again', async () => {
    const { number } = reinstatedUnpaid;
    await until(async () => (await read(number)).status === 'cancelled', `policy ${number} lapsed`);
    const reinstated = await request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, { token, body: {} });
    expect(reinstated.status, reinstated.text).toBe(200);
    // Still unpaid, and its lapse date the same (the reinstatement is dated on it): not lapsed again.
    expect(reinstated.body.billing.status).toBe('past_due');
    await moreSweeps(service, 3);
    expect(await read(number)).toMatchObject({ status: 'active', cancellation: null });
    expect((await transactions(number)).map((transaction) => transaction.type)).toEqual(['issuance', 'cancellation', 'reinstatement']);
    expect(await events(number, 'policy.cancelled')).toHaveLength(1);
  });

  it('after a lapse, a payment and then a reinstatement make the policy active again, and it stays so', async () => {
    const { number } = toReinstate;
    await until(async () => (await read(number)).status === 'cancelled', `policy ${number} lapsed`);
    // Everything the policy's own schedule has due so far, which the reinstatement puts back.
    const lapsed = await read(number);
    const due = lapsed.charges
      .filter((charge: { type: string; dueDate: string }) => charge.type === 'premium' && charge.dueDate <= todayUtc())
      .reduce((sum: number, charge: { amount: number }) => sum + charge.amount, 0);
    await pay(number, due, 'catch-up-1');
    const reinstated = await request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, { token, body: {} });
    expect(reinstated.status, reinstated.text).toBe(200);
    expect(reinstated.body).toMatchObject({ status: 'active', cancellation: null });
    expect(reinstated.body.billing).toMatchObject({ pastDue: 0, balance: 0 });
    // Paid up: the sweeps that follow do not lapse it again.
    await moreSweeps(service, 2);
    expect(await read(number)).toMatchObject({ status: 'active', cancellation: null });
    expect((await transactions(number)).map((transaction) => transaction.type)).toEqual(['issuance', 'cancellation', 'reinstatement']);
  });

  it('records policy.past_due once when a policy falls behind, not on the next sweeps; again once it was paid up and fell behind again', async () => {
    const { number, effectiveDate } = behind;
    await until(async () => (await events(number, 'policy.past_due')).length === 1, `policy ${number} past due`);
    await moreSweeps(service, 2);
    const [first, ...more] = await events(number, 'policy.past_due');
    expect(more).toEqual([]);
    expect(first.actor_sub).toBe('system');
    // The policy as REST reads it, without its charges: no transaction, no version of its own.
    const before = await read(number);
    const { charges: _charges, ...withoutCharges } = before;
    expect(first.data).toEqual({ object: withoutCharges });
    expect(first.data.object.billing).toMatchObject({ status: 'past_due', pastDue: 2900 });
    expect(first.data.object.version).toBe(1);

    // Paid up: the notice turns back (no event).
    await pay(number, before.billing.billed, 'behind-1');
    const notice = async () =>
      (
        await service.sql<{ past_due: boolean }>(
          'select n.past_due from policy_billing_notice n join policy p on p.id = n.policy_id where p.number = $1',
          [number],
        )
      )[0]?.past_due;
    await until(async () => (await notice()) === false, `policy ${number} noticed paid up`);
    expect(await events(number, 'policy.past_due')).toHaveLength(1);

    // Behind again: a dearer plan from the first period on raises what was due 20 days ago.
    const changed = await request(service.url, 'POST', `/api/v1/policy/${number}/changes`, {
      token,
      body: { effectiveDate, coverageSlug: 'accident-illness-plus' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.billing).toMatchObject({ status: 'past_due', pastDue: PLUS - 2900 });
    await until(async () => (await events(number, 'policy.past_due')).length === 2, `policy ${number} past due again`);
    await moreSweeps(service, 2);
    const again = await events(number, 'policy.past_due');
    expect(again).toHaveLength(2);
    expect(again[1].data.object.billing).toMatchObject({ status: 'past_due', pastDue: PLUS - 2900 });
    expect(await notice()).toBe(true);
  });
});

/** Lapse is opt-in: with BILLING_LAPSE_DAYS at its default (0), an unpaid policy is past due, never cancelled. */
describe('the billing sweep with lapse off (the default)', () => {
  const service = useTestService({ BILLING_SWEEP_SECONDS: '1', WEBHOOK_DELIVERY: 'false' });
  let token: string;
  const lifecycle = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 39_500,
    coverageSlug: 'accident-illness-plus',
  });

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('records policy.past_due for a policy 60 days unpaid and cancels nothing', async () => {
    const { number } = await lifecycle.policy(-60);
    const pastDue = () =>
      service.sql(`select 1 from event where type = 'policy.past_due' and (data->'object'->>'number')::bigint = $1`, [number]);
    await until(async () => (await pastDue()).length === 1, `policy ${number} past due`);
    await moreSweeps(service, 2);
    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.body).toMatchObject({ status: 'active', cancellation: null });
    expect(read.body.billing.status).toBe('past_due');
    expect(await pastDue()).toHaveLength(1);
  });
});
