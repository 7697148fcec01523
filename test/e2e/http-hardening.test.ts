import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { organizationBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Findings of the second security review (shared/reviews/security-review-2.md) at the HTTP edge,
 * each over HTTP against the real service; the names carry the review's numbers.
 */
describe('security review 2: the HTTP edge', () => {
  const logLines: string[] = [];
  const service = useTestService(
    {},
    { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );
  const errorLines = () => logLines.map((line) => JSON.parse(line)).filter((line) => line.level >= 50 || line.err?.stack);

  describe('L1: an address key named like object machinery', () => {
    it.each(['constructor', '__proto__', 'prototype'])(
      '%s is a 400 field error on every address, REST and GraphQL, and logs no error',
      async (key) => {
        const token = await service.token({ sub: `l1-${key}` });
        const before = errorLines().length;
        const address = JSON.parse(`{"line1":"x","${key}":"x"}`);
        const bodies = [organizationBody({ address }), organizationBody({ owners: [{ firstname: 'A', lastname: 'B', address }] })];
        for (const body of bodies) {
          const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: JSON.stringify(body) });
          expect(response.status, response.text).toBe(400);
          expect(response.body.code).toBe('BAD_USER_INPUT');
          expect(JSON.stringify(response.body.errors)).toContain('must not have a property named __proto__, constructor or prototype');
        }
        const viaGraphql = await graphql(
          service.url,
          'mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }',
          {
            input: { legalName: 'p', legalType: 'l', taxId: 't', address: { line1: 'x', additionalFields: JSON.parse(`{"${key}":"x"}`) } },
          },
          token,
        );
        expect(viaGraphql.status, viaGraphql.text).toBe(400);
        expect(viaGraphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(errorLines().slice(before)).toEqual([]);
        expect((await service.sql('select count(*)::int as n from organization where owner_sub = $1', [`l1-${key}`]))[0].n).toBe(0);
      },
    );
  });

  describe('L11: a client that hangs up mid-body', () => {
    it('is logged at info without a stack, not as an unexpected error', async () => {
      const token = await service.token({ sub: 'l11' });
      const before = logLines.length;
      const socket = createConnection(Number(new URL(service.url).port), '127.0.0.1');
      await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const arrived = new Promise((resolve) => service.server.once('request', resolve));
      socket.write(
        `POST /api/v1/organization HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"legalName":`,
      );
      // The server has the request and reads its body (past the token check); then the client goes away.
      await arrived;
      await sleep(200);
      socket.destroy();
      const lines = () => logLines.slice(before).map((line) => JSON.parse(line));
      for (let tries = 0; tries < 100 && !lines().some((line) => line.msg === 'client aborted the request'); tries++) await sleep(50);
      const aborted = lines().find((line) => line.msg === 'client aborted the request');
      expect(aborted).toMatchObject({ level: 30, req: { method: 'POST', url: '/api/v1/organization' } });
      expect(aborted.err).toBeUndefined();
      expect(lines().filter((line) => line.level >= 50 || line.err)).toEqual([]);
    });
  });

  describe('Info: an operationName of 100 KB', () => {
    it('is cut in the access line, the log and the answer', async () => {
      const token = await service.token({ sub: 'long-name' });
      const before = logLines.length;
      const long = `Op${'x'.repeat(100_000)}`;
      const answers = [
        await request(service.url, 'POST', '/graphql', { token, body: { query: 'query Short { viewer { sub } }', operationName: long } }),
        await request(service.url, 'POST', '/graphql', { token, body: { query: `query ${long} { viewer { sub } }`, operationName: long } }),
        await request(service.url, 'POST', '/graphql', { token, body: { query: `query ${long} { viewer { nope } }` } }),
      ];
      for (const answer of answers) expect(answer.text.length, answer.text.slice(0, 300)).toBeLessThan(2000);
      const written = logLines.slice(before);
      expect(written.length).toBeGreaterThanOrEqual(3);
      for (const line of written) expect(line.length, line.slice(0, 300)).toBeLessThan(2000);
    });
  });
});
