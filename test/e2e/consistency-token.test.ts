import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { startTestService, useTestService, type TestService } from '../support/test-service.js';

/**
 * Contract section 17: a Consistency-Token ahead of the primary's own WAL position cannot come
 * from a write, so it is 400 (security review 3, Info: `FFFFFFFF/FFFFFFFF` was taken and sent
 * the caller's reads to the primary). A token a write answered is taken, on this instance and
 * on another one of the same database that has not read so far itself.
 */
describe('a Consistency-Token ahead of the primary', () => {
  const service = useTestService({ WEBHOOK_DELIVERY: 'false' });
  let other: TestService;
  let token: string;
  let organizationId: string;
  let written: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'token-reader' });
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(created.status).toBe(200);
    organizationId = created.body.id;
    written = created.headers.get('consistency-token') ?? '';
    expect(written).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    other = await startTestService({ WEBHOOK_DELIVERY: 'false' }, { sameDatabaseAs: service });
  });
  afterAll(() => other?.stop());

  const ahead = 'FFFFFFFF/FFFFFFFF';
  const message = expect.stringMatching(/^is ahead of the primary's WAL position/);

  it('is 400 on REST, naming the header', async () => {
    const read = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, {
      token,
      headers: { 'consistency-token': ahead },
    });
    expect(read.status).toBe(400);
    expect(read.body).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ path: 'Consistency-Token', message }] });
  });

  it('is 400 on GraphQL, naming the header', async () => {
    const read = await request(service.url, 'POST', '/graphql', {
      token,
      headers: { 'consistency-token': ahead },
      body: { query: `{ organization(id: "${organizationId}") { id } }` },
    });
    expect(read.status).toBe(400);
    expect(read.body.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', errors: [{ path: 'Consistency-Token', message }] } }),
    ]);
  });

  it('takes the token a write answered, on REST and GraphQL', async () => {
    const rest = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, {
      token,
      headers: { 'consistency-token': written },
    });
    expect(rest.status).toBe(200);
    const read = await request(service.url, 'POST', '/graphql', {
      token,
      headers: { 'consistency-token': written },
      body: { query: `{ organization(id: "${organizationId}") { id } }` },
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ organization: { id: organizationId } });
  });

  it("takes another instance's token on an instance that has not read so far, and still refuses one ahead there", async () => {
    const created = await request(other.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(created.status).toBe(200);
    const later = created.headers.get('consistency-token') ?? '';
    const rest = await request(service.url, 'GET', `/api/v1/organization/${created.body.id}`, {
      token,
      headers: { 'consistency-token': later },
    });
    expect(rest.status).toBe(200);
    const read = await request(service.url, 'POST', '/graphql', {
      token,
      headers: { 'consistency-token': later },
      body: { query: 'query ($id: ID!) { organization(id: $id) { id } }', variables: { id: created.body.id } },
    });
    expect(read.body).toEqual({ data: { organization: { id: created.body.id } } });
    const refused = await request(other.url, 'GET', `/api/v1/organization/${created.body.id}`, {
      token,
      headers: { 'consistency-token': ahead },
    });
    expect(refused.status).toBe(400);
  });
});
