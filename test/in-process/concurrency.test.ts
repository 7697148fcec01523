import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Races decided by the database, through the operation core: 40 creates of one number, and a
 * keyed create replayed by another instance of the deployment (a second core on the database).
 * The races over HTTP: test/e2e/concurrency.
 */
describe('concurrency', () => {
  const service = useInProcessService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('gives exactly one 200 and 39 409s to 40 concurrent creates of one policy number', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        service.request('POST', '/api/v1/policy', { token, body: policyBody({ number: 424242, petName: `racer-${i}` }) }),
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

  describe('two instances on one database', () => {
    // Instances of one deployment share its data encryption key (and so its fingerprint key).
    const other = useInProcessService({}, { sameDatabaseAs: service });

    it('replays on one instance an idempotent request first answered by the other', async () => {
      const headers = { 'idempotency-key': `shared-${Date.now()}` };
      const first = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Once' }), headers });
      const retry = await other.request('POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Once' }), headers });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
      const rows = await service.sql("select id from policy where pet_name = 'Once'");
      expect(rows).toHaveLength(1);
    });
  });
});
