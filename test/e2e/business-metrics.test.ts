import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { until } from '../support/billing-sweep.js';
import { day, policyLifecycle } from '../support/policy-lifecycle.js';
import { scrape, type Scrape } from '../support/prometheus.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/** accident-illness-plus: 4200 cents a month, 12 months. */
const PLUS = 4200;
const plan = { plan: 'accident-illness-plus' };

/**
 * The business series on `/metrics` (issue 39, item 4), scraped and parsed as Prometheus does:
 * each write moves them by its own cents, under its plan (and reason, type), once it committed;
 * a refused write and a replayed one move nothing. The lapse and the past-due gauge come from
 * the billing sweep, which runs every second here.
 */
describe('business metrics', () => {
  const service = useTestService({ BILLING_SWEEP_SECONDS: '1', BILLING_LAPSE_DAYS: '30', WEBHOOK_DELIVERY: 'false' });
  let token: string;
  const lifecycle = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 39_700,
    coverageSlug: 'accident-illness-plus',
  });
  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    request(service.url, 'POST', path, { token, body, headers });
  /** How far each series moved between two scrapes. */
  const moved = (before: Scrape, after: Scrape) => (name: string, labels: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('counts an issuance, a payment, a cancellation and a refund by their cents and labels, once each', async () => {
    let before = await scrape(service.url);
    // Five days in: one premium due so far, neither past due nor lapsing while the sweep runs.
    const { number } = await lifecycle.policy(-5);
    let after = await scrape(service.url);
    let delta = moved(before, after);
    expect(delta('policies_issued_total', { ...plan, type: 'issuance' })).toBe(1);
    expect(delta('premium_written_cents_total', plan)).toBe(12 * PLUS);

    // A payment, sent twice with one Idempotency-Key: recorded, and counted, once.
    before = after;
    for (let i = 0; i < 2; i++) {
      const paid = await post(
        `/api/v1/policy/${number}/payments`,
        { amount: PLUS, reference: 'metrics-1' },
        { 'idempotency-key': 'pay-once' },
      );
      expect(paid.status, paid.text).toBe(200);
    }
    after = await scrape(service.url);
    delta = moved(before, after);
    expect(delta('payments_recorded_cents_total', plan)).toBe(PLUS);

    // Cancelled today by the underwriter: pro_rata credits for what is left of the term.
    before = after;
    const cancelled = await post(`/api/v1/policy/${number}/cancellation`, { effectiveDate: day(0), reason: 'underwriting' });
    expect(cancelled.status, cancelled.text).toBe(200);
    const credited = -cancelled.body.cancellation.credited;
    expect(credited).toBeGreaterThan(0);
    after = await scrape(service.url);
    delta = moved(before, after);
    expect(delta('policies_cancelled_total', { ...plan, reason: 'underwriting' })).toBe(1);
    expect(delta('credits_given_cents_total', plan)).toBe(credited);
    expect(delta('policies_lapsed_total', plan)).toBe(0);
    expect(delta('premium_written_cents_total', plan)).toBe(0);

    // A refund of part of the credit balance; one above it is refused and counts nothing.
    before = after;
    const credit = -cancelled.body.billing.balance;
    expect(credit).toBeGreaterThan(100);
    expect((await post(`/api/v1/policy/${number}/refunds`, { amount: 100, reference: 'refund-1' })).status).toBe(200);
    const refused = await post(`/api/v1/policy/${number}/refunds`, { amount: credit, reference: 'refund-2' });
    expect(refused.status, refused.text).toBe(409);
    after = await scrape(service.url);
    delta = moved(before, after);
    expect(delta('refunds_recorded_cents_total', plan)).toBe(100);
    expect(delta('payments_recorded_cents_total', plan)).toBe(0);
    for (const name of [
      'policies_issued_total',
      'policies_cancelled_total',
      'policies_lapsed_total',
      'premium_written_cents_total',
      'credits_given_cents_total',
      'payments_recorded_cents_total',
      'refunds_recorded_cents_total',
    ]) {
      expect(after.family(name)?.type, name).toBe('COUNTER');
    }
  });

  it('counts a lapse (lapsed, and cancelled for non_payment) and shows the policies past due as the last sweep saw them', async () => {
    const before = await scrape(service.url);
    const { number } = await lifecycle.policy(-60);
    let after = before;
    await until(async () => {
      after = await scrape(service.url);
      return moved(before, after)('policies_lapsed_total', plan) > 0;
    }, `policy ${number} lapsed`);
    const delta = moved(before, after);
    expect(delta('policies_lapsed_total', plan)).toBe(1);
    expect(delta('policies_cancelled_total', { ...plan, reason: 'non_payment' })).toBe(1);
    const policy = await read(number);
    expect(policy.status).toBe('cancelled');
    expect(delta('credits_given_cents_total', plan)).toBe(-policy.cancellation.credited);
    // Lapsed 30 days in, it still owes the month it was covered: past due, as the sweep noted.
    expect(policy.billing.pastDue).toBeGreaterThan(0);
    await until(async () => {
      const [{ count }] = await service.sql<{ count: number }>('select count(*)::int as count from policy_billing_notice where past_due');
      return count > 0 && (await scrape(service.url)).value('policies_past_due') === count;
    }, 'the past-due gauge');
    expect((await scrape(service.url)).family('policies_past_due')?.type).toBe('GAUGE');
  });

  async function read(number: number) {
    return (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
  }
});
