import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped } from '../../src/values/calendar-date.js';
import { useInProcessService } from '../support/in-process.js';
import { CHANGE, day, policyLifecycle } from '../support/policy-lifecycle.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Contract section 14, "Change", through the operation core on REST and GraphQL: refused bodies
 * and plans, INVALID_STATE, replays with an Idempotency-Key scoped to the policy. What a change
 * sets and charges over HTTP: test/e2e/policy-changes.
 */
describe('changing a policy mid-term', () => {
  const service = useInProcessService();
  let token: string;
  const { policy, change, fields, written } = policyLifecycle(service, () => token, {
    firstNumber: 9100,
    coverageSlug: 'accident-illness-basic',
  });

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('refuses a plan change off a billing date, and an unknown plan, with 400 and nothing written', async () => {
    const { number, effectiveDate } = await policy(-20);
    const before = await written(number);
    const off = await change(number, { effectiveDate: addDays(effectiveDate, 35), coverageSlug: 'accident-illness-plus' });
    expect(off.status).toBe(400);
    expect(off.body.errors.map((error: { path: string }) => error.path)).toEqual(['effectiveDate']);
    const unknown = await change(number, { effectiveDate: addMonthsClamped(effectiveDate, 1), coverageSlug: 'gold-plated' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error: { path: string }) => error.path)).toEqual(['coverageSlug']);
    expect(await written(number)).toEqual(before);
  });

  it("checks the body as the create does: every error at once, at least one field, no nulls; unknown fields ignored as on the policy's other routes", async () => {
    const { number, effectiveDate } = await policy(-20, { petDOB: day(-400) });
    const before = await written(number);
    const bad = await change(number, { effectiveDate: '2026-02-30', petName: '  ', ownerDOB: day(3), petDOB: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['effectiveDate', 'ownerDOB', 'petDOB', 'petName']);
    const nothing = await change(number, { effectiveDate });
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors).toEqual([{ path: '', message: expect.stringContaining('at least one of') }]);
    // The summary names the body when the error is about no one field.
    expect(nothing.body.detail).toBe(
      'Invalid body: must change at least one of petName, petDOB, ownerFirstname, ownerLastname, ownerDOB, coverageSlug',
    );
    const nulls = await change(number, { effectiveDate, petName: null });
    expect(nulls.status).toBe(400);
    expect(nulls.body.errors.map((error: { path: string }) => error.path)).toEqual(['petName']);
    // A pet born after the policy began: the create's rule, against the policy's effectiveDate.
    const unborn = await change(number, { effectiveDate: day(0), petDOB: addDays(effectiveDate, 1) });
    expect(unborn.status).toBe(400);
    expect(unborn.body.errors.map((error: { path: string }) => error.path)).toEqual(['petDOB']);
    expect(await written(number)).toEqual(before);
    // An unknown field is refused (contract section 18), listed with the others, with the field it is near.
    const extra = await change(number, { effectiveDate: day(0), petDob: day(-300), petName: ' ', colour: 'brown' });
    expect(extra.status, JSON.stringify(extra.body)).toBe(400);
    expect(extra.body.errors).toEqual([
      { path: 'petDob', message: 'is not a field of this request; did you mean "petDOB"?' },
      { path: 'colour', message: 'is not a field of this request' },
      { path: 'petName', message: expect.any(String) },
    ]);
    expect(await written(number)).toEqual(before);
    const fixed = await change(number, { effectiveDate: day(0), petDOB: day(-300) });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect((await fields(number)).petDOB).toBe(day(-300));
  });

  it('refuses with 409 INVALID_STATE, writing nothing: a cancellation in force or scheduled, expired, a date outside the term or before the latest transaction', async () => {
    const cancelled = await policy(-20);
    expect(
      (
        await service.request('POST', `/api/v1/policy/${cancelled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(10), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const expired = await policy(-400);
    const dated = await policy(-20);
    expect((await change(dated.number, { effectiveDate: day(3), petName: 'Three' })).status).toBe(200);
    const cases: Array<[number, object]> = [
      [cancelled.number, { effectiveDate: day(11), petName: 'Nope' }],
      [expired.number, { effectiveDate: day(-390), petName: 'Nope' }],
      [dated.number, { effectiveDate: day(2), petName: 'Nope' }],
      [dated.number, { effectiveDate: addMonthsClamped(dated.effectiveDate, 12), petName: 'Nope' }],
    ];
    for (const [number, body] of cases) {
      const before = await written(number);
      const response = await change(number, body);
      expect(response.status, JSON.stringify(body)).toBe(409);
      expect(response.body.code).toBe('INVALID_STATE');
      expect(await written(number)).toEqual(before);
    }
    // Reinstated, the policy can be changed again (from the cancellation's date on).
    expect((await service.request('POST', `/api/v1/policy/${cancelled.number}/reinstatement`, { token, body: {} })).status).toBe(200);
    expect((await change(cancelled.number, { effectiveDate: day(10), petName: 'Back' })).status).toBe(200);
  });

  it('changes through GraphQL, replays an Idempotency-Key with one transaction, and scopes the key to the policy in the path', async () => {
    const { number, effectiveDate } = await policy(-3);
    const input = { effectiveDate: addMonthsClamped(effectiveDate, 1), coverageSlug: 'accident-illness-unlimited', ownerDOB: '1990-04-01' };
    const headers = { 'idempotency-key': `change-${number}` };
    const response = await service.request('POST', '/graphql', {
      token,
      body: { query: CHANGE, variables: { number, input } },
      headers,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const answer = response.body.data.changePolicy;
    expect(answer.ownerDOB).toBeNull();
    expect(answer.transactions.edges.at(-1).node).toMatchObject({
      type: 'change',
      changes: { ownerDOB: { from: null, to: '1990-04-01' } },
    });
    const replay = await service.request('POST', '/graphql', {
      token,
      body: { query: CHANGE, variables: { number, input } },
      headers,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.changePolicy).toEqual(answer);
    // The same key on another policy is that policy's change, not a replay.
    const other = await policy(-3);
    const elsewhere = await change(other.number, input, { 'idempotency-key': `change-${number}` });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    expect(elsewhere.body.number).toBe(other.number);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect((await written(number)).transactions).toBe(2);
  });
});
