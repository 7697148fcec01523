import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/** The `/graphql` access line names the operation and the codes it answered (spec section 13). */
describe('the /graphql access line', () => {
  const logLines: string[] = [];
  const service = useTestService(
    {},
    { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );
  const accessLine = (requestId: string) =>
    logLines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request completed' && line.req?.id === requestId);

  it('names the operation, its type and the error codes, so a NOT_FOUND is not a plain 200', async () => {
    const token = await service.token({ sub: 'logged' });
    const missing = await graphql(service.url, 'query FindPolicy { policy(number: 987654) { number } }', {}, token);
    expect(missing.status).toBe(200);
    const line = await waitFor(() => accessLine(missing.headers.get('x-request-id')!));
    expect(line).toMatchObject({
      route: '/graphql',
      operationName: 'FindPolicy',
      operationType: 'query',
      codes: ['NOT_FOUND'],
      res: { statusCode: 200 },
    });

    const fine = await graphql(service.url, '{ viewer { sub } }', {}, token);
    expect(await waitFor(() => accessLine(fine.headers.get('x-request-id')!))).toMatchObject({
      operationName: null,
      operationType: 'query',
    });
    expect(accessLine(fine.headers.get('x-request-id')!).codes).toBeUndefined();

    const refused = await graphql(service.url, 'query Bad { nope }', {}, token);
    expect(await waitFor(() => accessLine(refused.headers.get('x-request-id')!))).toMatchObject({ codes: ['GRAPHQL_VALIDATION_FAILED'] });

    const unauthenticated = await graphql(service.url, '{ viewer { sub } }', {}, 'not-a-token');
    expect(await waitFor(() => accessLine(unauthenticated.headers.get('x-request-id')!))).toMatchObject({
      res: { statusCode: 401 },
      codes: ['UNAUTHENTICATED'],
    });
  });
});

/** A REST access line carries its error code too (review F15), as the /graphql line does. */
describe('the REST access line', () => {
  const logLines: string[] = [];
  const service = useTestService(
    {},
    { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );
  const accessLine = (requestId: string) =>
    waitFor(() => logLines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request completed' && line.req?.id === requestId));

  it('carries the code of the problem it answered, and none on success', async () => {
    const token = await service.token({ sub: 'rest-logged' });
    const missing = await request(service.url, 'GET', '/api/v1/policy/987654', { token });
    expect(missing.status).toBe(404);
    expect(await accessLine(missing.headers.get('x-request-id')!)).toMatchObject({
      route: '/api/v1/policy/:id',
      codes: ['NOT_FOUND'],
      res: { statusCode: 404 },
    });

    const invalid = await request(service.url, 'POST', '/api/v1/organization', { token, body: { legalName: '' } });
    expect(invalid.status).toBe(400);
    expect(await accessLine(invalid.headers.get('x-request-id')!)).toMatchObject({ codes: ['BAD_USER_INPUT'], res: { statusCode: 400 } });

    const anonymous = await request(service.url, 'GET', '/api/v1/organization');
    expect(anonymous.status).toBe(401);
    expect(await accessLine(anonymous.headers.get('x-request-id')!)).toMatchObject({
      codes: ['UNAUTHENTICATED'],
      res: { statusCode: 401 },
    });

    const fine = await request(service.url, 'GET', '/api/v1/organization', { token });
    expect(fine.status).toBe(200);
    expect((await accessLine(fine.headers.get('x-request-id')!)).codes).toBeUndefined();
  });
});

describe('the other lines of a request', () => {
  const logLines: string[] = [];
  const service = useTestService(
    { RESPONSE_MAX_BYTES: '600' },
    { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );

  it('carry its request id, as its access line does', async () => {
    const token = await service.token({ sub: 'verbose' });
    const answer = await graphql(service.url, '{ __schema { types { name description } } }', {}, token);
    expect(answer.status).toBe(400);
    const requestId = answer.headers.get('x-request-id')!;
    const lines = logLines.map((line) => JSON.parse(line));
    const warning = await waitFor(() => lines.find((line) => line.msg === 'response over RESPONSE_MAX_BYTES refused'));
    expect(warning).toMatchObject({ requestId, sub: 'verbose' });
    expect(
      await waitFor(() =>
        logLines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request completed' && line.req?.id === requestId),
      ),
    ).toBeDefined();
  });
});

async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no access line');
}
