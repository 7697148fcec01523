import { beforeAll, describe, expect, it } from 'vitest';
import { print } from 'graphql';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { day } from '../support/policy-lifecycle.js';
import { POLICY_ANSWER } from '../../src/policies/policy-event.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Idempotency-Key over HTTP (contract section 7): a replay as the host writes it, on both
 * surfaces. Everything else about keys, through the operation core: test/in-process/idempotency.
 */
describe('idempotency keys over HTTP', () => {
  const service = useTestService();
  let token: string;
  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it.each([
    ['REST', '/api/v1/policy', policyBody({ petName: 'Once REST' })],
    ['GraphQL', '/graphql', { query: print(CreatePolicyDocument), variables: { input: policyBody({ petName: 'Once GraphQL' }) } }],
  ] as const)('%s: replays the identical response, with Idempotent-Replayed, and creates once', async (surface, path, body) => {
    const send = () => request(service.url, 'POST', path, { token, body, headers: { 'idempotency-key': `http-${surface}` } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await service.sql('select 1 from policy where pet_name = $1', [`Once ${surface}`])).toHaveLength(1);
  });

  /** A 5-year policy cancelled and reinstated twice (300 charges), so that its next cancellation answers about 90 KB. */
  async function longLedger(number: number) {
    const effectiveDate = day(-10);
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({
        number,
        effectiveDate,
        expirationDate: addMonthsClamped(effectiveDate, 60),
        coverageSlug: 'accident-illness-plus',
      }),
    });
    expect(created.status, created.text).toBe(200);
    for (let cycle = 0; cycle < 2; cycle++) {
      const path = `/api/v1/policy/${number}`;
      expect(
        (await request(service.url, 'POST', `${path}/cancellation`, { token, body: { effectiveDate: day(5), reason: 'other' } })).status,
      ).toBe(200);
      expect((await request(service.url, 'POST', `${path}/reinstatement`, { token, body: {} })).status).toBe(200);
    }
  }

  it.each(['REST', 'GraphQL'] as const)(
    '%s: a replay of a 90 KB cancellation answer after a reinstatement is the first answer, byte for byte (M1)',
    async (surface) => {
      const number = surface === 'REST' ? 9300 : 9301;
      await longLedger(number);
      const cancellation = { effectiveDate: day(5), reason: 'insured_request' };
      const headers = { 'idempotency-key': `long-cancel-${surface}` };
      const cancel = () =>
        surface === 'REST'
          ? request(service.url, 'POST', `/api/v1/policy/${number}/cancellation`, { token, body: cancellation, headers })
          : request(service.url, 'POST', '/graphql', {
              token,
              headers,
              body: {
                query: `mutation ($number: SafeInt!, $input: CancelPolicyInput!) { cancelPolicy(number: $number, input: $input) { ...PolicyAnswer } } ${POLICY_ANSWER}`,
                variables: { number, input: cancellation },
              },
            });
      const first = await cancel();
      expect(first.status, first.text.slice(0, 300)).toBe(200);
      // Over the 64 KB that were kept before: 361 charges.
      expect(first.text.length).toBeGreaterThan(85_000);
      expect(first.text).toContain('"method":"short_rate"');
      const reinstated = await request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, { token, body: {} });
      expect(reinstated.status).toBe(200);

      const replay = await cancel();
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      // Kept compressed and sealed, well under the cap.
      const [{ bytes }] = await service.sql<{ bytes: number }>('select octet_length(body) as bytes from idempotency_key where key = $1', [
        headers['idempotency-key'],
      ]);
      expect(bytes).toBeLessThan(64 * 1024);
    },
  );
});
