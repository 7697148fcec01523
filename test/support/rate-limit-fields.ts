import { expect } from 'vitest';
import type { TestResponse } from './http.js';

/** `"requests";r=9;t=2` items of a RateLimit field, by policy. */
export function rateLimit(response: TestResponse): Record<string, { r: number; t?: number }> {
  const items = (response.headers.get('ratelimit') ?? '').split(',').filter(Boolean);
  return Object.fromEntries(
    items.map((item) => {
      const [name, ...parameters] = item.trim().split(';');
      const values = Object.fromEntries(parameters.map((parameter) => parameter.split('=')).map(([key, value]) => [key, Number(value)]));
      return [JSON.parse(name), values as { r: number; t?: number }];
    }),
  );
}

/** A 429 of `policy`'s budget: Retry-After, and the policy's RateLimit fields with nothing left. */
export function expectRateLimited(response: TestResponse, policy: string) {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(response.headers.get('ratelimit-policy')).toContain(`"${policy}"`);
  expect(rateLimit(response)[policy].r).toBe(0);
}
