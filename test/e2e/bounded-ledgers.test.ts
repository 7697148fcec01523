import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped } from '../../src/values/calendar-date.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request, type TestResponse } from '../support/http.js';
import { CANCEL, REINSTATE, day } from '../support/policy-lifecycle.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14, "Bounded ledgers", over REST and GraphQL, the review's L1 case: a 5-year
 * policy cancelled and reinstated again and again. A ledger holds at most POLICY_MAX_CHARGES
 * (1,000) charges, and a step is refused only when it would leave no room for a cancellation and
 * its reinstatement: every cancellation written can be reinstated, the refusal falls on a
 * cancellation while the policy is active and whole, and a cancellation that fits stays possible.
 * The rule itself: test/unit/ledger-room.test.ts.
 */
describe('a ledger at its cap', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const post = (number: number, action: string, body: object) =>
    request(service.url, 'POST', `/api/v1/policy/${number}/${action}`, { token, body });
  const count = async (number: number) =>
    (
      await service.sql<{ n: number }>('select count(*)::int as n from charge c join policy p on p.id = c.policy_id where p.number = $1', [
        number,
      ])
    )[0].n;

  /** A 5-year policy from 10 days ago: 60 monthly periods. */
  async function fiveYears(number: number) {
    const effectiveDate = day(-10);
    const expirationDate = addMonthsClamped(effectiveDate, 60);
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ number, effectiveDate, expirationDate, coverageSlug: 'accident-illness-plus' }),
    });
    expect(created.status, created.text).toBe(200);
    return { effectiveDate, expirationDate };
  }

  /** A cancellation then its reinstatement, over REST or GraphQL; the cancellation's answer (null when refused). */
  async function cycle(number: number, body: object, over: 'REST' | 'GraphQL'): Promise<{ refused: TestResponse | null; lines: number }> {
    if (over === 'REST') {
      const cancelled = await post(number, 'cancellation', body);
      if (cancelled.status !== 200) return { refused: cancelled, lines: 0 };
      const reinstated = await post(number, 'reinstatement', {});
      expect(reinstated.status, reinstated.text).toBe(200);
      return { refused: null, lines: reinstated.body.charges.length - cancelled.body.charges.length };
    }
    const cancelled = await graphql(service.url, CANCEL, { number, input: body }, token);
    if (cancelled.body.errors) return { refused: cancelled, lines: 0 };
    const reinstated = await graphql(service.url, REINSTATE, { number, input: {} }, token);
    expect(reinstated.body.errors, reinstated.text).toBeUndefined();
    return { refused: null, lines: reinstated.body.data.reinstatePolicy.charges.length - cancelled.body.data.cancelPolicy.charges.length };
  }

  it('cancels and reinstates until a cancellation would leave no room for its reinstatement: refused while active, never stranded', async () => {
    const number = 9100;
    const { effectiveDate, expirationDate } = await fiveYears(number);
    const on = day(5);
    let cycles = 0;
    let refused: TestResponse | null = null;
    // Pro rata from 5 days ahead: 60 credits, as many reversals. REST and GraphQL in turn.
    while (!refused && cycles < 20) {
      const outcome = await cycle(number, { effectiveDate: on, reason: 'other' }, cycles % 2 === 0 ? 'REST' : 'GraphQL');
      refused = outcome.refused;
      if (!refused) {
        expect(outcome.lines).toBe(60);
        cycles++;
      }
    }
    // 60 + 7 × 120 = 900; an eighth cancellation (60) would leave 40 free, not the 60 of its reinstatement.
    expect(cycles).toBe(7);
    expect(await count(number)).toBe(900);
    expect(refused?.body.errors[0].extensions.code ?? refused?.body.code).toBe('INVALID_STATE');
    const message: string = refused?.body.errors?.[0].message ?? refused?.body.detail;
    expect(message).toContain('would add 60 charges to the 900');
    expect(message).toContain('free for its reinstatement');
    // The policy is as it was: active, with no cancellation.
    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.body).toMatchObject({ status: 'active', cancellation: null });
    expect(read.body.charges).toHaveLength(900);

    // The same refusal over the other surface.
    const viaRest = await post(number, 'cancellation', { effectiveDate: on, reason: 'other' });
    expect(viaRest.status).toBe(409);
    expect(viaRest.body.code).toBe('INVALID_STATE');

    // A plan change that would leave no room for a cancellation from its date and its reinstatement is refused…
    const thirtieth = addMonthsClamped(effectiveDate, 30);
    const plan = await post(number, 'changes', { effectiveDate: thirtieth, coverageSlug: 'accident-illness-basic' });
    expect(plan.status, plan.text).toBe(409);
    expect(plan.body.detail).toContain('free for a cancellation and its reinstatement');
    // …one that writes no charges takes no room.
    expect((await post(number, 'changes', { effectiveDate: on, petName: 'Biscuit II' })).status).toBe(200);

    // Later in the term a cancellation fits with its reinstatement: not uncancellable, and reinstatable.
    const late = addDays(addMonthsClamped(effectiveDate, 57), 3);
    const lateCycle = await cycle(number, { effectiveDate: late, reason: 'insured_request' }, 'REST');
    expect(lateCycle.refused).toBeNull();
    // Three periods still running and the short-rate fee.
    expect(lateCycle.lines).toBe(4);
    expect(await count(number)).toBe(908);
    expect(expirationDate > late).toBe(true);
  });

  it("the review's short-rate case: cycles of a cancellation and its fee stop at a refused cancellation, every reinstatement answered", async () => {
    const number = 9101;
    await fiveYears(number);
    let cycles = 0;
    for (;;) {
      const outcome = await cycle(number, { effectiveDate: day(5), reason: 'insured_request' }, 'REST');
      if (outcome.refused) {
        expect(outcome.refused.status).toBe(409);
        break;
      }
      expect(outcome.lines).toBe(61);
      cycles++;
    }
    // 60 + 7 × 122 = 914: an eighth would need 122 more. Before, the eighth was written and could not be reinstated.
    expect(cycles).toBe(7);
    expect(await count(number)).toBe(914);
    expect((await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body).toMatchObject({
      status: 'active',
      cancellation: null,
    });
  });
});
