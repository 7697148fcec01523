import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { isSlowSuccess, slotShares, tenantGroup } from '../../src/webhooks/delivery-fairness.js';

/**
 * Contract section 12, "Webhooks are fair between tenants": how one instance's slots are shared
 * (the behaviour, with real receivers: test/e2e/webhook-fairness.test.ts).
 */
describe('delivery slots shared between tenants', () => {
  const settings = { concurrency: 10, inFlightPerTenant: 4 };

  it('keeps a quarter of the slots (at least one) for tenants with nothing in flight', () => {
    const shares = slotShares(settings, true);
    expect({ general: shares.general, reserved: shares.reserved }).toEqual({ general: 7, reserved: 3 });
    const claims = Array.from({ length: 10 }, () => shares.claim());
    expect(claims.map((claim) => claim.fetchOptions.groupConcurrency)).toEqual([4, 4, 4, 4, 4, 4, 4, 1, 1, 1]);
    expect(slotShares({ concurrency: 1, inFlightPerTenant: 4 }, true).claim().fetchOptions).toEqual({ batchSize: 1, groupConcurrency: 1 });
  });

  it('gives a general slot back once, when its fetch found nothing or its job is done', () => {
    const shares = slotShares(settings, true);
    const claims = Array.from({ length: 7 }, () => shares.claim());
    expect(shares.claim().fetchOptions.groupConcurrency).toBe(1);
    claims[0].release();
    claims[0].release();
    expect(shares.claim().fetchOptions.groupConcurrency).toBe(4);
    expect(shares.claim().fetchOptions.groupConcurrency).toBe(1);
  });

  it('without fairness (tests only), shares nothing: no groups, no caps', () => {
    const shares = slotShares(settings, false);
    expect(Array.from({ length: 10 }, () => shares.claim().fetchOptions)).toEqual(Array(10).fill({ batchSize: 1 }));
    expect(tenantGroup('sub-a', false)).toEqual({});
    expect(tenantGroup('sub-a', true)).toEqual({ group: { id: 'sub-a' } });
  });

  it('calls a success slow past 5 s, whatever the timeout', () => {
    expect(isSlowSuccess(5_000)).toBe(false);
    expect(isSlowSuccess(5_001)).toBe(true);
    expect(isSlowSuccess(900)).toBe(false);
  });

  it('caps each tenant at WEBHOOK_IN_FLIGHT_PER_TENANT (4), and refuses the per-tree setting it replaced', () => {
    expect(loadConfig({}).webhooks.inFlightPerTenant).toBe(4);
    expect(loadConfig({ WEBHOOK_IN_FLIGHT_PER_TENANT: '2' }).webhooks.inFlightPerTenant).toBe(2);
    expect(() => loadConfig({ WEBHOOK_IN_FLIGHT_PER_TREE: '4' })).toThrow(
      /WEBHOOK_IN_FLIGHT_PER_TREE was replaced by WEBHOOK_IN_FLIGHT_PER_TENANT/,
    );
  });
});
