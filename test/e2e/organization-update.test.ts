import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { ACCOUNT, NEW_ACCOUNT, NEW_OWNER_TAX_ID, OWNER_TAX_ID, organizationChanges } from '../support/organization-changes.js';
import { clientOf, useTestService } from '../support/test-service.js';

/**
 * Changing an organization (contract section 15) over HTTP, REST and GraphQL: merge-patch
 * semantics, the version and its ETag, the `organization.updated` event and its masks, and the
 * media types a PATCH takes. Refusals, preconditions, races and replays, through the operation
 * core: test/in-process/organization-update.
 */
describe('changing an organization', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'org-changer' });
  });

  const { create, patch, updatedEvents, rowOf } = organizationChanges({ ...clientOf(service), sql: service.sql }, () => token);

  it('starts at version 1 with ETag "1" on the create and on reads', async () => {
    const created = await create();
    expect(created.version).toBe(1);
    const read = await request(service.url, 'GET', `/api/v1/organization/${created.id}`, { token });
    // The read answers the create's shape (contract section 18), version included.
    expect(read.body).toEqual(created);
    expect(read.headers.get('etag')).toBe('"1"');
    const list = await request(service.url, 'GET', '/api/v1/organization', { token });
    expect(list.body.data.find((item: { id: string }) => item.id === created.id)).toMatchObject({ version: 1 });
    const [event] = await service.sql<{ data: { object: { version: number } } }>(
      "select data from event where type = 'organization.created' and organization_id = $1",
      [created.id],
    );
    expect(event.data.object.version).toBe(1);
  });

  it('merges a patch: null removes, the address merges property by property, lists are replaced whole', async () => {
    const created = await create();
    const response = await patch(created.id, {
      email: null,
      description: 'Pets and more',
      address: { city: 'Shelbyville', suite: null, floor: { wing: 'east' } },
      bankAccounts: [{ routing: '220000000', account: NEW_ACCOUNT }],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('etag')).toBe('"2"');
    const body = response.body;
    expect(body).toMatchObject({
      id: created.id,
      version: 2,
      name: 'Paws',
      email: null,
      phone: '+1 413 555 0100',
      description: 'Pets and more',
      // RFC 7396 on the address: line1 kept, city replaced, suite removed, floor merged.
      address: { line1: '1 Main St', city: 'Shelbyville', floor: { number: 3, wing: 'east' } },
    });
    expect(body.address).not.toHaveProperty('suite');
    expect(body.bankAccounts).toEqual([{ id: expect.any(String), nickname: null, routing: '220000000', accountLast4: '6555' }]);
    // Owners were not sent: kept as they were, same ids.
    expect(body.owners).toEqual(created.owners);

    const read = await request(service.url, 'GET', `/api/v1/organization/${created.id}`, { token });
    expect(read.body.version).toBe(2);
    expect(read.headers.get('etag')).toBe('"2"');
    const graph = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { version email description address { city additionalFields } bankAccounts { accountLast4 } } }`,
      { id: created.id },
      token,
    );
    expect(graph.body.data.organization).toEqual({
      version: 2,
      email: null,
      description: 'Pets and more',
      address: { city: 'Shelbyville', additionalFields: { floor: { number: 3, wing: 'east' } } },
      bankAccounts: [{ accountLast4: '6555' }],
    });

    const events = await updatedEvents(created.id);
    expect(events).toHaveLength(1);
    const [{ data }] = events;
    expect(data.object).toMatchObject({ id: created.id, version: 2, email: null, description: 'Pets and more' });
    expect(data.object.bankAccounts).toEqual([{ id: body.bankAccounts[0].id, nickname: null, routing: '220000000', accountLast4: '6555' }]);
    // The earlier values of exactly what changed, the accounts as reads show them.
    expect(Object.keys(data.previousAttributes).sort()).toEqual(['address', 'bankAccounts', 'description', 'email']);
    expect(data.previousAttributes).toMatchObject({
      email: 'billing@paws.example',
      description: 'A pet shop',
      address: { line1: '1 Main St', city: 'Springfield', suite: '4B', floor: { number: 3 } },
      bankAccounts: created.bankAccounts,
    });
    const stored = await rowOf(created.id);
    expect(stored.accounts).toHaveLength(1);
    expect(stored.accounts[0].account_last4).toBe('6555');
  });

  it('takes application/json too, and refuses any other media type with 415', async () => {
    const created = await create(organizationBody());
    const asJson = await patch(created.id, { description: 'plain JSON' }, {});
    expect(asJson.status, asJson.text).toBe(200);
    expect(asJson.body.description).toBe('plain JSON');
    const asText = await patch(created.id, 'description=x', { 'content-type': 'text/plain' });
    expect(asText.status).toBe(415);
    expect(asText.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(asText.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', detail: expect.stringContaining('application/merge-patch+json') });
  });

  it('re-encrypts changed secrets and shows only their last fours, in the answer and the event', async () => {
    const created = await create();
    const before = await rowOf(created.id);
    const response = await patch(created.id, {
      bankAccounts: [{ routing: '110000000', account: NEW_ACCOUNT }],
      owners: [{ firstname: 'Ada', lastname: 'L', taxId: NEW_OWNER_TAX_ID, ownership: 60 }],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.owners[0].taxIdLast4).toBe('3322');
    const after = await rowOf(created.id);
    expect(after.accounts[0].account_ciphertext).not.toBe(before.accounts[0].account_ciphertext);
    expect(after.owners[0].tax_id_ciphertext).not.toBe(before.owners[0].tax_id_ciphertext);
    const [event] = await updatedEvents(created.id);
    const everything = JSON.stringify({ answer: response.body, event, after });
    for (const secret of [ACCOUNT, NEW_ACCOUNT, OWNER_TAX_ID, NEW_OWNER_TAX_ID, '1234567890']) expect(everything).not.toContain(secret);
    expect(event.data.previousAttributes.owners[0]).toMatchObject({ taxIdLast4: '4321' });
    expect(event.data.previousAttributes.bankAccounts.map((account: { accountLast4: string }) => account.accountLast4)).toEqual([
      '3444',
      '7890',
    ]);
  });
});
