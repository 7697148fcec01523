import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

describe('the OpenAPI document', () => {
  const service = useTestService();

  it('is served without a token and is a valid OpenAPI 3.1 document', async () => {
    const response = await request(service.url, 'GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(response.body.paths).sort()).toEqual([
      '/api/v1/organization',
      '/api/v1/organization/{id}',
      '/api/v1/policy',
      '/api/v1/policy/{id}',
    ]);
  });
});
