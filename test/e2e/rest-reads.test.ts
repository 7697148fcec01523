import { describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { organizationWithSecrets, policyBody, SECRETS } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Contract section 18 over HTTP: what an integrator writes it can read back (events included,
 * key for key), typos in policy bodies are refused all at once with the field they were
 * meant to be, and a policy is found by the integrator's own key through the access rule.
 */
describe('integrators read back what they write (contract section 18)', () => {
  const service = useTestService();
  const today = todayUtc();

  /** The event of this type whose object has this id (or, for an organization, that organization). */
  async function eventObject(token: string, type: string, id: string): Promise<unknown> {
    let after: string | null = null;
    do {
      const page: { body: { data: Array<{ data: { object: { id: string } } }>; nextCursor: string | null } } = await request(
        service.url,
        'GET',
        `/api/v1/events?type=${type}&limit=100${after ? `&after=${after}` : ''}`,
        { token },
      );
      const found = page.body.data.filter((event) => event.data.object.id === id).at(-1);
      if (found) return found.data.object;
      after = page.body.nextCursor;
    } while (after);
    throw new Error(`no ${type} event for ${id}`);
  }

  it("events' data.object has the REST answer's keys in the REST answer's order, for every event type", async () => {
    const alice = await service.token({ sub: 'reads-alice' });
    const body = {
      ...organizationWithSecrets(),
      email: 'a@example.com',
      address: { line1: '1 Main St', city: 'Springfield', suite: '4B', country: 'US' },
      owners: [{ firstname: 'Ada', lastname: 'L', taxId: SECRETS.ownerTaxId, ownership: 60, address: { city: 'Reno', dock: 4 } }],
    };
    const organization = await request(service.url, 'POST', '/api/v1/organization', { token: alice, body });
    expect(organization.status, organization.text).toBe(200);
    const token = await service.token({ sub: 'reads-alice', org: organization.body.id });
    // Byte for byte: same keys, same order, same values (the answer and the event are of one moment).
    expect(JSON.stringify(await eventObject(token, 'organization.created', organization.body.id))).toBe(JSON.stringify(organization.body));

    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${organization.body.id}`, { token, body: { phone: '+1 413 555 0100', address: { city: 'Shelbyville' } } });
    expect(changed.status, changed.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'organization.updated', organization.body.id))).toBe(JSON.stringify(changed.body));

    const quote = await request(service.url, 'POST', '/api/v1/quote', { token, body: policyBody({ effectiveDate: today, expirationDate: addDays(today, 365) }) });
    expect(quote.status, quote.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'quote.created', quote.body.id))).toBe(JSON.stringify(quote.body));

    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ internalID: 'ev-1', cvc: '123', effectiveDate: today, expirationDate: addDays(today, 365), petDOB: '2022-01-01' }),
    });
    expect(policy.status, policy.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'policy.created', policy.body.id))).toBe(JSON.stringify(policy.body));
    const number = policy.body.number;
    const steps: Array<[string, string, object]> = [
      ['policy.changed', 'changes', { effectiveDate: addMonthsClamped(today, 1), petName: 'Biscuit II', coverageSlug: 'accident-illness-plus' }],
      ['policy.cancelled', 'cancellation', { effectiveDate: addDays(today, 60), reason: 'insured_request' }],
      ['policy.reinstated', 'reinstatement', {}],
    ];
    for (const [type, path, stepBody] of steps) {
      const answer = await request(service.url, 'POST', `/api/v1/policy/${number}/${path}`, { token, body: stepBody });
      expect(answer.status, answer.text).toBe(200);
      expect(JSON.stringify(await eventObject(token, type, policy.body.id)), type).toBe(JSON.stringify(answer.body));
    }

    // A renewal's event is the successor, as the renewal answers it.
    const renewable = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ effectiveDate: addDays(today, -335), expirationDate: addDays(today, 30) }),
    });
    const renewed = await request(service.url, 'POST', `/api/v1/policy/${renewable.body.number}/renewal`, { token, body: {} });
    expect(renewed.status, renewed.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'policy.renewed', renewed.body.id))).toBe(JSON.stringify(renewed.body));
  });
});
