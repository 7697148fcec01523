import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Races decided by the database, and two instances sharing one, over HTTP. A number's race and
 * a replay across instances, through the operation core: test/in-process/concurrency.
 */
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
  });
});
