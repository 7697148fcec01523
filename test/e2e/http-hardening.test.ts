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
  const service = useTestService({}, { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) });
  const errorLines = () => logLines.map((line) => JSON.parse(line)).filter((line) => line.level >= 50 || line.err?.stack);

  describe('L1: an address key named like object machinery', () => {
    it.each(['constructor', '__proto__', 'prototype'])('%s is a 400 field error on every address, REST and GraphQL, and logs no error', async (key) => {
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
        { input: { legalName: 'p', legalType: 'l', taxId: 't', address: { line1: 'x', additionalFields: JSON.parse(`{"${key}":"x"}`) } } },
        token,
      );
      expect(viaGraphql.status, viaGraphql.text).toBe(400);
      expect(viaGraphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(errorLines().slice(before)).toEqual([]);
      expect((await service.sql('select count(*)::int as n from organization where owner_sub = $1', [`l1-${key}`]))[0].n).toBe(0);
    });
  });
});
