import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useInProcessService } from '../support/in-process.js';
import { quoteIssuing } from '../support/issue-quote.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Contract section 14: issuing a quote, `POST /api/v1/policy` and `createPolicy` with `quoteId`,
 * through the operation core on both surfaces (GraphQL answers read as REST's): a quote issued or
 * expired, fields sent again, racing issues, reach, replays with an Idempotency-Key. The policy
 * made of the quote over HTTP: test/e2e/issue-quote.
 */
describe('issuing a quote', () => {
  const service = useInProcessService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const { surfaces, quote, readQuote, policiesOf, policyCount } = quoteIssuing(service, () => token);

  describe.each(Object.entries(surfaces))('over %s', (_surface, issue) => {
    it('answers 409 INVALID_STATE for a quote already issued, writing nothing more', async () => {
      const quoted = await quote();
      const first = await issue({ quoteId: quoted.id });
      expect(first.status).toBe(200);
      const before = await policyCount();
      const second = await issue({ quoteId: quoted.id });
      expect(second).toMatchObject({ status: 409, code: 'INVALID_STATE' });
      expect(await policyCount()).toBe(before);
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'issued', policyNumber: first.policy!.number });
    });

    it('answers 409 INVALID_STATE for an expired quote, which stays expired and unissued', async () => {
      const quoted = await quote();
      await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [quoted.id]);
      const before = await policyCount();
      expect(await issue({ quoteId: quoted.id })).toMatchObject({ status: 409, code: 'INVALID_STATE' });
      expect(await policyCount()).toBe(before);
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'expired', policyNumber: null });
    });

    it('answers 400 naming each quoted field sent again, organizationId included, with the other broken rules, writing nothing', async () => {
      const quoted = await quote();
      const before = await policyCount();
      const answer = await issue({
        quoteId: quoted.id,
        petName: 'Other',
        organizationId: quoted.organizationId,
        ownerDOB: null,
        cvc: '12',
      });
      expect(answer).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
      expect(answer.errors!.map((error) => error.path).sort()).toEqual(['cvc', 'organizationId', 'ownerDOB', 'petName']);
      expect(answer.errors!.find((error) => error.path === 'petName')!.message).toMatch(/quoted/);
      expect(await policyCount()).toBe(before);
      expect((await readQuote(quoted.id)).status).toBe('open');
    });

    it('still requires the fields of a new policy without quoteId', async () => {
      const answer = await issue({ petName: 'No quote' });
      expect(answer).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
      expect(answer.errors!.map((error) => error.path).sort()).toEqual([
        'coverageSlug',
        'effectiveDate',
        'expirationDate',
        'ownerFirstname',
        'ownerLastname',
      ]);
    });

    it('lets one of 10 racing issues of a quote win: one 200, nine 409 INVALID_STATE, one policy', async () => {
      const quoted = await quote();
      const answers = await Promise.all(Array.from({ length: 10 }, () => issue({ quoteId: quoted.id })));
      const statuses = answers.map((answer) => `${answer.status} ${answer.code ?? ''}`.trim()).sort();
      expect(statuses).toEqual(['200', ...Array(9).fill('409 INVALID_STATE')]);
      const policies = await policiesOf(quoted.id);
      expect(policies).toHaveLength(1);
      expect(Number(policies[0].number)).toBe(answers.find((answer) => answer.status === 200)!.policy!.number);
    });

    it("answers 404 for a stranger's quote exactly as for a missing one, and the quote stays open", async () => {
      const quoted = await quote();
      const stranger = await service.token({ sub: `stranger-${randomUUID()}` });
      const forbidden = await issue({ quoteId: quoted.id }, { as: stranger });
      expect(forbidden).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      for (const missing of [randomUUID(), 'not-a-uuid']) expect(await issue({ quoteId: missing }, { as: stranger })).toEqual(forbidden);
      expect((await readQuote(quoted.id)).status).toBe('open');
    });

    it('replays an Idempotency-Key: the same answer, one policy, one event; another body is 422', async () => {
      const quoted = await quote();
      const key = `issue-${randomUUID()}`;
      const first = await issue({ quoteId: quoted.id }, { key });
      expect(first.status).toBe(200);
      const again = await issue({ quoteId: quoted.id }, { key });
      expect(again).toMatchObject({ status: 200, replayed: true });
      expect(again.policy).toEqual(first.policy);
      expect(await policiesOf(quoted.id)).toHaveLength(1);
      expect(
        await service.sql(`select 1 from event where type = 'policy.created' and (data->'object'->>'number')::bigint = $1`, [
          first.policy!.number,
        ]),
      ).toHaveLength(1);
      const other = await issue({ quoteId: quoted.id, internalID: 'another body' }, { key });
      expect(other).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    });
  });
});
