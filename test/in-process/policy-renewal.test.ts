import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useInProcessService } from '../support/in-process.js';
import { raceAtTheCharges } from '../support/lock-waits.js';
import { RENEW, day, policyRenewals } from '../support/policy-lifecycle.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Contract section 14, "Renew", through the operation core on REST and GraphQL: a number taken,
 * the window, INVALID_STATE, refused bodies and reach, racing renewals, replays with an
 * Idempotency-Key. The successor and its price over HTTP: test/e2e/policy-renewal.
 */
describe('renewing a policy', () => {
  const service = useInProcessService();
  let token: string;
  const { policy, renew, read, policyCount } = policyRenewals(service, () => token, 9000);

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('takes a given number (409 CONFLICT when taken, nothing written); a number is never reused', async () => {
    const old = await policy(5);
    const taken = await renew(old.number, { number: old.number });
    expect([taken.status, taken.body.code]).toEqual([409, 'CONFLICT']);
    expect((await read(old.number)).renewedBy).toBeNull();
    const chosen = 9_876_543;
    const response = await renew(old.number, { number: chosen });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ number: chosen, renewalOf: old.number });
    expect((await read(old.number)).renewedBy).toBe(chosen);
  });

  it('opens the window POLICY_RENEWAL_WINDOW_DAYS (60) before expirationDate: 61 days out is 409 saying when it opens, 60 is allowed', async () => {
    const early = await policy(61);
    const before = await policyCount();
    const refused = await renew(early.number, {});
    expect([refused.status, refused.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(refused.body.detail).toContain(`can be renewed from ${day(1)}`);
    const viaGraphql = await service.graphql(RENEW, { number: early.number, input: {} }, token);
    expect(viaGraphql.body.errors[0].extensions.code).toBe('INVALID_STATE');
    expect(await policyCount()).toBe(before);

    const opening = await policy(60);
    expect((await renew(opening.number, {})).status).toBe(200);
  });

  it('409 INVALID_STATE: cancelled, a cancellation scheduled, already renewed; a renewed policy can still be cancelled', async () => {
    const cancelled = await policy(30);
    expect(
      (
        await service.request('POST', `/api/v1/policy/${cancelled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(-1), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const scheduled = await policy(30);
    expect(
      (
        await service.request('POST', `/api/v1/policy/${scheduled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(10), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const before = await policyCount();
    for (const { number } of [cancelled, scheduled]) {
      const refused = await renew(number, {});
      expect([refused.status, refused.body.code], String(number)).toEqual([409, 'INVALID_STATE']);
      expect(refused.body.detail).toContain('cancellation');
    }
    expect(await policyCount()).toBe(before);

    const renewed = await policy(30);
    const first = await renew(renewed.number, {});
    expect(first.status).toBe(200);
    const second = await renew(renewed.number, { coverageSlug: 'accident-only' });
    expect([second.status, second.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(second.body.detail).toContain(`renewed by policy ${first.body.number}`);

    // Cancelling the old policy mid-term stays allowed; its successor is untouched, and the event shows the link.
    const cancel = await service.request('POST', `/api/v1/policy/${renewed.number}/cancellation`, {
      token,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ status: 'cancelled', renewedBy: first.body.number });
    const events = await service.sql<{ data: { object: { renewedBy: number } } }>(
      "select data from event where type = 'policy.cancelled' and (data->'object'->>'number')::bigint = $1",
      [renewed.number],
    );
    expect(events.map((event) => event.data.object.renewedBy)).toEqual([first.body.number]);
    expect((await read(first.body.number)).status).toBe('pending');
  });

  it('400 for an unknown coverageSlug or a bad number, 404 for a policy out of reach or missing; nothing written', async () => {
    const old = await policy(30);
    const before = await policyCount();
    const unknown = await renew(old.number, { coverageSlug: 'gold-plated' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: 'coverageSlug', message: expect.stringContaining('catalog') }]);
    const badNumber = await renew(old.number, { number: 0 });
    expect(badNumber.status).toBe(400);
    expect(badNumber.body.errors.map((error: { path: string }) => error.path)).toEqual(['number']);
    const stranger = await service.token({ sub: 'mallory' });
    const foreign = await renew(old.number, {}, {}, stranger);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    const foreignGraphql = await service.graphql(RENEW, { number: old.number, input: {} }, stranger);
    expect(foreignGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await renew(99_999_999, {})).status).toBe(404);
    expect(await policyCount()).toBe(before);
    expect((await read(old.number)).renewedBy).toBeNull();
  });

  it('serializes racing renewals: of 10, exactly one 200 and 9 INVALID_STATE, one successor', async () => {
    const old = await policy(30);
    const responses = await raceAtTheCharges(service, () => Promise.all(Array.from({ length: 10 }, () => renew(old.number, {}))));
    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded).toHaveLength(1);
    expect(responses.filter((response) => response.status !== 200).map((response) => `${response.status} ${response.body.code}`)).toEqual(
      Array(9).fill('409 INVALID_STATE'),
    );
    const successors = await service.sql<{ number: string }>(
      'select s.number::text from policy s join policy p on p.id = s.renewal_of where p.number = $1',
      [old.number],
    );
    expect(successors.map((row) => Number(row.number))).toEqual([succeeded[0].body.number]);
  });

  it('replays an Idempotency-Key: the same successor, one renewal; the same key on another policy renews that one', async () => {
    const old = await policy(30);
    const key = randomUUID();
    const first = await renew(old.number, {}, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await renew(old.number, {}, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await renew(old.number, { coverageSlug: 'accident-only' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    const another = await policy(30);
    const elsewhere = await renew(another.number, {}, { 'idempotency-key': key });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.renewalOf).toBe(another.number);
    // An answer not kept (too large, or lost to a crash before the finish) is rebuilt from the
    // successor the renewal recorded on the key, in its own transaction: the same policy.
    await service.sql('update idempotency_key set body = null, status = null, content_type = null where key = $1', [key]);
    const rebuilt = await renew(another.number, {}, { 'idempotency-key': key });
    expect([rebuilt.status, rebuilt.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(rebuilt.body).toEqual(elsewhere.body);

    // Through GraphQL, with the header.
    const third = await policy(30);
    const body = { query: RENEW, variables: { number: third.number, input: {} } };
    const headers = { 'idempotency-key': randomUUID() };
    const viaGraphql = await service.request('POST', '/graphql', { token, body, headers });
    expect(viaGraphql.body.errors).toBeUndefined();
    const replayed = await service.request('POST', '/graphql', { token, body, headers });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(viaGraphql.body);
    const successors = await service.sql('select 1 from policy s join policy p on p.id = s.renewal_of where p.number = any($1::bigint[])', [
      [old.number, third.number],
    ]);
    expect(successors).toHaveLength(2);
  });
});
