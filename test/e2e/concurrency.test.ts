import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/** Races decided by the database, and two instances sharing one. */
describe('concurrency', () => {
  // These tests race one caller's requests on purpose: its in-flight limit is off here (and
  // tested in rate-limits.test.ts), and so is the cap on one address's connections (100 at
  // once beside the client's kept-alive ones; tested in request-bounds.test.ts).
  const unlimited = { RATE_LIMIT_CONCURRENT_REQUESTS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1000' };
  const service = useTestService(unlimited);
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('gives exactly one 200 and 39 409s to 40 concurrent creates of one policy number', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 424242, petName: `racer-${i}` }) }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(39);
    const rows = await service.sql<{ pet_name: string }>('select pet_name from policy where number = 424242');
    expect(rows).toHaveLength(1);
    expect(rows[0].pet_name).toBe(responses.find((response) => response.status === 200)!.body.petName);
    const charges = await service.sql('select c.id from charge c join policy p on p.id = c.policy_id where p.number = 424242');
    expect(charges).toHaveLength(12);
  });

  it('gives 100 concurrent creates without numbers 100 distinct numbers, all readable', async () => {
    // Clients also take numbers the sequence is about to hand out.
    await Promise.all(
      [1, 2, 3, 5, 8].map((number) => request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number }) })),
    );
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(100).fill(200));
    const numbers = responses.map((response) => response.body.number as number);
    expect(new Set(numbers).size).toBe(100);
    expect(numbers.filter((number) => [1, 2, 3, 5, 8].includes(number))).toEqual([]);
    for (const number of numbers) {
      const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
      expect(read.status).toBe(200);
    }
  });

  describe('two instances on one database', () => {
    // Instances of one deployment share its data encryption key (and so its fingerprint key).
    const other = useTestService(unlimited, { sameDatabaseAs: service });

    it('reads on one what was created on the other, both ways', async () => {
      const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Shared' }) });
      const read = await request(other.url, 'GET', `/api/v1/policy/${created.body.number}`, { token });
      expect(read.status).toBe(200);
      const organization = await request(other.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({ legalName: 'From B' }),
      });
      const back = await request(service.url, 'GET', `/api/v1/organization/${organization.body.id}`, { token });
      expect(back.body).toMatchObject({ id: organization.body.id, name: 'From B' });
    });

    it('replays on one instance an idempotent request first answered by the other', async () => {
      const headers = { 'idempotency-key': `shared-${Date.now()}` };
      const first = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Once' }), headers });
      const retry = await request(other.url, 'POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Once' }), headers });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
      const rows = await service.sql("select id from policy where pet_name = 'Once'");
      expect(rows).toHaveLength(1);
    });
  });
});
