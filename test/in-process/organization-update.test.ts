import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import type { TestResponse } from '../support/http.js';
import { useInProcessService } from '../support/in-process.js';
import { ACCOUNT, MERGE_PATCH, NEW_ACCOUNT, OWNER_TAX_ID, organizationChanges } from '../support/organization-changes.js';

/**
 * Changing an organization (contract section 15) through the operation core, REST and GraphQL:
 * refused fields and rules, If-Match / ifVersion, racing changes, out of reach, replays with an
 * Idempotency-Key. Merge semantics and the ETag over HTTP: test/e2e/organization-update.
 */
describe('changing an organization', () => {
  const service = useInProcessService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'org-changer' });
  });

  const { create, patch, updatedEvents, rowOf } = organizationChanges(service, () => token);

  it('sets name back to legalName when it is removed, and refuses removing a required field', async () => {
    const created = await create(organizationBody({ name: 'Short', legalName: 'Long Legal Name LLC' }));
    const renamed = await patch(created.id, { name: null });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.name).toBe('Long Legal Name LLC');
    const refused = await patch(created.id, { legalName: null, taxId: null });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['legalName', 'taxId']);
  });

  it('refuses id and parentId by name, with every other broken rule at once, and writes nothing', async () => {
    const created = await create();
    const before = await rowOf(created.id);
    const response = await patch(created.id, {
      id: created.id,
      parentId: created.id,
      email: 'not an address',
      legalType: '',
      website: 'ftp://example.com',
      bankAccounts: [{ routing: '1', account: NEW_ACCOUNT }],
      owners: [
        { firstname: 'A', lastname: 'B', ownership: 70 },
        { firstname: 'C', lastname: 'D', ownership: 40, birthdate: '2999-01-01' },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BAD_USER_INPUT');
    const paths = response.body.errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'id',
        'parentId',
        'email',
        'legalType',
        'website',
        'bankAccounts[0].routing',
        'owners',
        'owners[1].birthdate',
      ]),
    );
    expect(response.text).not.toContain(NEW_ACCOUNT);
    expect(await rowOf(created.id)).toEqual(before);
    expect(await updatedEvents(created.id)).toHaveLength(0);
  });

  it('refuses merged address extras past the create bounds', async () => {
    const created = await create(organizationBody({ address: { notes: 'x'.repeat(1500) } }));
    const response = await patch(created.id, { address: { more: 'y'.repeat(1500) } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'address', message: expect.stringContaining('2048 bytes') }]);
  });

  it('If-Match: the current version changes it; another version or a malformed one is 412 with nothing written', async () => {
    const created = await create();
    const first = await patch(created.id, { description: 'one' }, { ...MERGE_PATCH, 'if-match': '"1"' });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('etag')).toBe('"2"');
    const before = await rowOf(created.id);
    const eventsBefore = await updatedEvents(created.id);
    for (const stale of ['"1"', '"3"', '2', 'W/"2"', '"abc"', '', '"2", "3"']) {
      const refused = await patch(created.id, { description: 'two', bankAccounts: [] }, { ...MERGE_PATCH, 'if-match': stale });
      expect(refused.status, `If-Match: ${stale}`).toBe(412);
      expect(refused.body.code).toBe('PRECONDITION_FAILED');
    }
    expect(await rowOf(created.id)).toEqual(before);
    expect(await updatedEvents(created.id)).toEqual(eventsBefore);
    const second = await patch(created.id, { description: 'two' }, { ...MERGE_PATCH, 'if-match': '"2"' });
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(3);
    const any = await patch(created.id, { description: 'three' }, { ...MERGE_PATCH, 'if-match': '*' });
    expect(any.body.version).toBe(4);
  });

  it('answers a patch that changes nothing with 200, the same version, and no event', async () => {
    const created = await create();
    const before = await rowOf(created.id);
    for (const body of [
      {},
      { name: 'Paws', email: 'billing@paws.example', address: { city: 'Springfield' } },
      // The same accounts and owners sent again, secrets included: nothing changes.
      {
        bankAccounts: [
          { nickname: 'operating', routing: '110000000', account: ACCOUNT },
          { routing: '110000001', account: '1234567890' },
        ],
        owners: [{ firstname: 'Ada', lastname: 'L', taxId: OWNER_TAX_ID, ownership: 60, address: { city: 'Boston' } }],
      },
    ]) {
      const response = await patch(created.id, body, { ...MERGE_PATCH, 'if-match': '"1"' });
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.body).toEqual(created);
    }
    expect(await rowOf(created.id)).toEqual(before);
    expect(await updatedEvents(created.id)).toHaveLength(0);
  });

  it("two racing PATCHes with the same If-Match: exactly one 200 and one 412, and without If-Match neither loses the other's fields", async () => {
    for (let round = 0; round < 5; round++) {
      const created = await create(organizationBody());
      const guarded = await Promise.all([
        patch(created.id, { description: 'from the first' }, { ...MERGE_PATCH, 'if-match': '"1"' }),
        patch(created.id, { phone: '+1 555 0100 22' }, { ...MERGE_PATCH, 'if-match': '"1"' }),
      ]);
      expect(guarded.map((response) => response.status).sort()).toEqual([200, 412]);
      expect(await updatedEvents(created.id)).toHaveLength(1);
      // The winner's field is stored, the refused one's is not: the 412 wrote nothing.
      const won = guarded.find((response) => response.status === 200)!.body;
      const stored = (await rowOf(created.id)).organization;
      expect({ version: stored.version, description: stored.description, phone: stored.phone }).toEqual({
        version: 2,
        description: won.description,
        phone: won.phone,
      });
      expect([won.description, won.phone].filter((value) => value !== null)).toHaveLength(1);

      const open = await create(organizationBody());
      const both = await Promise.all([
        patch(open.id, { description: 'from the first', owners: [{ firstname: 'A', lastname: 'B' }] }),
        patch(open.id, { phone: '+1 555 0100 22', bankAccounts: [{ routing: '110000000', account: NEW_ACCOUNT }] }),
      ]);
      expect(both.map((response) => response.status)).toEqual([200, 200]);
      expect(both.map((response) => response.body.version).sort()).toEqual([2, 3]);
      const last = both.find((response) => response.body.version === 3)!;
      expect(last.body).toMatchObject({ description: 'from the first', phone: '+1 555 0100 22' });
      expect(last.body.owners).toHaveLength(1);
      expect(last.body.bankAccounts).toHaveLength(1);
      const read = await service.graphql(
        `query ($id: ID!) { organization(id: $id) { version description phone owners { firstname } bankAccounts { accountLast4 } } }`,
        { id: open.id },
        token,
      );
      expect(read.body.data.organization).toEqual({
        version: 3,
        description: 'from the first',
        phone: '+1 555 0100 22',
        owners: [{ firstname: 'A' }],
        bankAccounts: [{ accountLast4: '6555' }],
      });
    }
  });

  it('answers 404 to a caller that may not reach the organization, and writes nothing', async () => {
    const created = await create();
    const before = await rowOf(created.id);
    const stranger = await service.token({ sub: 'mallory' });
    const response = await patch(created.id, { description: 'mine now' }, MERGE_PATCH, stranger);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
    // With a stale If-Match too: out of reach is 404, before any version is compared.
    expect((await patch(created.id, { description: 'mine now' }, { ...MERGE_PATCH, 'if-match': '"7"' }, stranger)).status).toBe(404);
    expect((await patch('not-a-uuid', { description: 'x' })).status).toBe(404);
    const graph = await service.graphql(
      'mutation ($id: ID!) { updateOrganization(id: $id, input: { description: "mine" }) { id } }',
      { id: created.id },
      stranger,
    );
    expect(graph.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await rowOf(created.id)).toEqual(before);
  });

  it('replays a PATCH sent again with its Idempotency-Key, ETag included, and changes once', async () => {
    const created = await create(organizationBody());
    const send = () => patch(created.id, { description: 'once' }, { ...MERGE_PATCH, 'idempotency-key': `change-${created.id}` });
    const first = await send();
    const second: TestResponse = await send();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('etag')).toBe('"2"');
    expect(second.body).toEqual(first.body);
    expect(await updatedEvents(created.id)).toHaveLength(1);
  });

  it('replays updateOrganization sent again to /graphql with its Idempotency-Key, and changes once', async () => {
    const created = await create(organizationBody());
    const body = {
      query:
        'mutation ($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { id version description } }',
      variables: { id: created.id, input: { description: 'keyed' } },
    };
    const send = () => service.request('POST', '/graphql', { token, body, headers: { 'idempotency-key': `graphql-change-${created.id}` } });
    const first = await send();
    const second = await send();
    expect(first.body.data.updateOrganization).toEqual({ id: created.id, version: 2, description: 'keyed' });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await updatedEvents(created.id)).toHaveLength(1);
  });

  describe('GraphQL updateOrganization', () => {
    const UPDATE = `mutation ($id: ID!, $input: UpdateOrganizationInput!, $ifVersion: Int) {
      updateOrganization(id: $id, input: $input, ifVersion: $ifVersion) {
        id version name email address { line1 city additionalFields } bankAccounts { accountLast4 } owners { firstname taxIdLast4 }
      }
    }`;

    it('merges the same way and counts versions; ifVersion refuses another version with PRECONDITION_FAILED', async () => {
      const created = await create();
      const changed = await service.graphql(
        UPDATE,
        { id: created.id, input: { email: null, address: { city: 'Ogdenville', additionalFields: { suite: null } } }, ifVersion: 1 },
        token,
      );
      expect(changed.body.errors).toBeUndefined();
      expect(changed.body.data.updateOrganization).toEqual({
        id: created.id,
        version: 2,
        name: 'Paws',
        email: null,
        address: { line1: '1 Main St', city: 'Ogdenville', additionalFields: { floor: { number: 3 } } },
        bankAccounts: [{ accountLast4: '3444' }, { accountLast4: '7890' }],
        owners: [{ firstname: 'Ada', taxIdLast4: '4321' }],
      });
      const stale = await service.graphql(UPDATE, { id: created.id, input: { description: 'late' }, ifVersion: 1 }, token);
      // As every refused mutation over application/graphql-response+json: the code's status, no data.
      expect(stale.status).toBe(412);
      expect(stale.body.data ?? null).toBeNull();
      expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
      expect((await rowOf(created.id)).organization.version).toBe(2);
      const removed = await service.graphql(UPDATE, { id: created.id, input: { address: null, owners: null } }, token);
      expect(removed.body.data.updateOrganization).toMatchObject({ version: 3, address: null, owners: [] });
      // Removed is SQL null, not a JSON null in the column; so is a create's absent address.
      const [row] = await service.sql<{ gone: boolean }>('select address is null as gone from organization where id = $1', [created.id]);
      expect(row.gone).toBe(true);
      const bare = await create(organizationBody());
      const [bareRow] = await service.sql<{ gone: boolean; email: boolean }>(
        'select address is null as gone, email is null as email from organization where id = $1',
        [bare.id],
      );
      expect(bareRow).toEqual({ gone: true, email: true });
    });

    it('refuses parentId and id by name, and a required field set to null', async () => {
      const created = await create(organizationBody());
      const response = await service.graphql(
        UPDATE,
        { id: created.id, input: { parentId: created.id, id: created.id, legalType: null } },
        token,
      );
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].extensions.errors.map((error: { path: string }) => error.path).sort()).toEqual([
        'id',
        'legalType',
        'parentId',
      ]);
      const nulled = await service.graphql(UPDATE, { id: created.id, input: { legalType: null } }, token);
      expect(nulled.body.errors[0].extensions.errors).toEqual([
        { path: 'legalType', message: expect.stringContaining('cannot be removed') },
      ]);
    });
  });
});
