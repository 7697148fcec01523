import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { raceAtTheCharges } from '../support/lock-waits.js';
import { CANCEL, day, policyLifecycle } from '../support/policy-lifecycle.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Contract section 14, "Cancel" and "Reinstate", through the operation core on REST and GraphQL:
 * refused bodies, missing and out-of-reach policies, INVALID_STATE, racing cancellations, replays
 * with an Idempotency-Key. The credits, fees and reversals over HTTP: test/e2e/policy-cancellation.
 */
describe('cancelling and reinstating a policy', () => {
  const service = useInProcessService();
  let token: string;
  let organizationId: string;
  const { policy, cancel, reinstate, ledgerCount, written } = policyLifecycle(service, () => token, {
    firstNumber: 7000,
    coverageSlug: 'accident-illness-plus',
  });

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('refuses bad bodies with 400 on the fields, and a missing policy with 404', async () => {
    const { number } = await policy(-10);
    const bad = await cancel(number, { effectiveDate: '2026-02-30', reason: 'bored' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['effectiveDate', 'reason']);
    expect((await cancel(99_999_999, { effectiveDate: day(0), reason: 'other' })).status).toBe(404);
    expect(
      (
        await service.request('POST', '/api/v1/policy/not-a-number/cancellation', {
          token,
          body: { effectiveDate: day(0), reason: 'other' },
        })
      ).status,
    ).toBe(404);
    const stranger = await service.token({ sub: 'mallory' });
    const foreign = await service.request('POST', `/api/v1/policy/${number}/cancellation`, {
      token: stranger,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(foreign.status).toBe(404);
    const foreignReinstate = await service.request('POST', `/api/v1/policy/${number}/reinstatement`, { token: stranger, body: {} });
    expect(foreignReinstate.status).toBe(404);
  });

  // real-clients-3 F24: `reason` is the CancellationReason enum, so a typed client cannot send a
  // typo; a client that does anyway gets REST's message whichever way it sends it.
  it('refuses a reason outside CancellationReason: REST and GraphQL variables with the same field error, a literal as a document error', async () => {
    const { number } = await policy(-10);
    const before = await written(number);
    const refusal = [{ path: 'reason', message: 'must be one of insured_request, non_payment, underwriting, fraud, free_look, other' }];
    const rest = await cancel(number, { effectiveDate: day(0), reason: 'insured_requst' });
    expect([rest.status, rest.body.code, rest.body.errors]).toEqual([400, 'BAD_USER_INPUT', refusal]);

    const variables = await service.request('POST', '/graphql', {
      token,
      body: { query: CANCEL, variables: { number, input: { effectiveDate: day(0), reason: 'insured_requst' } } },
    });
    expect(variables.body.data).toBeUndefined();
    expect(variables.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', errors: refusal } })]);

    // Written into the document, the value fails graphql-js validation: refused before anything
    // runs, with the value cut out of the message (docs/spec.md, section 6).
    for (const literal of ['"insured_requst"', 'insured_requst']) {
      const inline = await service.request('POST', '/graphql', {
        token,
        body: {
          query: `mutation { cancelPolicy(number: ${number}, input: { effectiveDate: "${day(0)}", reason: ${literal} }) { number } }`,
        },
      });
      expect(inline.body.data).toBeUndefined();
      expect(inline.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
      expect(inline.body.errors[0].message).not.toContain('insured_requst');
    }
    expect(await written(number)).toEqual(before);
  });

  it('409 INVALID_STATE: already cancelled, expired, a date outside the term or before the latest transaction', async () => {
    const cancelled = await policy(-50);
    expect((await cancel(cancelled.number, { effectiveDate: day(-1), reason: 'other' })).status).toBe(200);
    const twice = await cancel(cancelled.number, { effectiveDate: day(0), reason: 'other' });
    expect([twice.status, twice.body.code]).toEqual([409, 'INVALID_STATE']);

    const expired = await policy(-400);
    const late = await cancel(expired.number, { effectiveDate: day(-100), reason: 'other' });
    expect([late.status, late.body.code]).toEqual([409, 'INVALID_STATE']);

    const { number, effectiveDate, expirationDate } = await policy(-10);
    for (const effective of [day(-11), expirationDate]) {
      const outside = await cancel(number, { effectiveDate: effective, reason: 'other' });
      expect([outside.status, outside.body.code], effective).toEqual([409, 'INVALID_STATE']);
    }
    // After a cancellation on day 5 and its reinstatement (effective on day 5), day 3 is before the latest transaction.
    expect((await cancel(number, { effectiveDate: day(5), reason: 'other' })).status).toBe(200);
    expect((await reinstate(number)).status).toBe(200);
    const before = await cancel(number, { effectiveDate: day(3), reason: 'other' });
    expect([before.status, before.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(effectiveDate).toBe(day(-10));
  });

  it('serializes racing cancellations: of 20, exactly one 200 and 19 INVALID_STATE, one set of credits', async () => {
    const { number } = await policy(-45);
    // Without the policy's row lock, two would write a cancellation (the second fails: a 500).
    const responses = await raceAtTheCharges(service, () =>
      Promise.all(Array.from({ length: 20 }, (_, index) => cancel(number, { effectiveDate: day(-index), reason: 'other' }))),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused.map((response) => `${response.status} ${response.body.code}`)).toEqual(Array(19).fill('409 INVALID_STATE'));
    const transactions = await service.sql(
      "select t.id from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 and t.type = 'cancellation'",
      [number],
    );
    expect(transactions).toHaveLength(1);
    const credits = await service.sql<{ transaction_id: string }>(
      "select c.transaction_id from charge c join policy p on p.id = c.policy_id where p.number = $1 and c.type = 'credit'",
      [number],
    );
    expect(new Set(credits.map((credit) => credit.transaction_id))).toEqual(new Set([transactions[0].id]));
  });

  it('replays an Idempotency-Key: the same answer, one cancellation; the reinstatement likewise', async () => {
    const { number } = await policy(-30);
    const key = randomUUID();
    const body = { effectiveDate: day(-1), reason: 'other' };
    const first = await cancel(number, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await cancel(number, body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await cancel(number, { ...body, reason: 'underwriting' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);

    const reinstateKey = randomUUID();
    const reinstated = await reinstate(number, { 'idempotency-key': reinstateKey });
    expect(reinstated.status).toBe(200);
    const replayed = await reinstate(number, { 'idempotency-key': reinstateKey });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(reinstated.body);
    // The same key on another policy is another request, not a replay of this one.
    const another = await policy(-30);
    await cancel(another.number, body);
    const elsewhere = await reinstate(another.number, { 'idempotency-key': reinstateKey });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.number).toBe(another.number);
    const counts = await service.sql<{ type: string; n: number }>(
      'select t.type, count(*)::int as n from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 group by t.type order by t.type',
      [number],
    );
    expect(counts).toEqual([
      { type: 'cancellation', n: 1 },
      { type: 'issuance', n: 1 },
      { type: 'reinstatement', n: 1 },
    ]);
  });

  it('replays an Idempotency-Key on cancelPolicy through GraphQL; the same key on another policy cancels that one, as on REST', async () => {
    const { number } = await policy(-30);
    const input = { effectiveDate: day(-2), reason: 'other' };
    const body = { query: CANCEL, variables: { number, input } };
    const headers = { 'idempotency-key': randomUUID() };
    const first = await service.request('POST', '/graphql', { token, body, headers });
    expect(first.body.errors).toBeUndefined();
    const again = await service.request('POST', '/graphql', { token, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ledgerCount(number)).toBe(first.body.data.cancelPolicy.charges.length);
    // A key is scoped to the write and the record it names (docs/decisions.md, issue 37): here as
    // REST's route and the policy in its path, not a 422 for "another body".
    const another = await policy(-30);
    const elsewhere = await service.request('POST', '/graphql', {
      token,
      body: { query: CANCEL, variables: { number: another.number, input } },
      headers,
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.errors).toBeUndefined();
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.data.cancelPolicy.cancellation).toMatchObject({ reason: 'other' });
    expect(await ledgerCount(another.number)).toBe(elsewhere.body.data.cancelPolicy.charges.length);
  });

  it("a descendant's token cannot cancel its ancestor's policy (404), the ancestor's can cancel the descendant's", async () => {
    const child = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({ parentId: organizationId }),
    });
    expect(child.status).toBe(200);
    const childToken = await service.token({ sub: 'someone', org: child.body.id });
    const parentPolicy = await policy(-10);
    const refused = await service.request('POST', `/api/v1/policy/${parentPolicy.number}/cancellation`, {
      token: childToken,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(refused.status).toBe(404);
    expect(await ledgerCount(parentPolicy.number)).toBe(12);
    const childPolicy = await policy(-10, { organizationId: child.body.id });
    expect((await cancel(childPolicy.number, { effectiveDate: day(0), reason: 'other' })).status).toBe(200);
  });
});
