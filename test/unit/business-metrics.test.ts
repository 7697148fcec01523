import { AggregatorRegistry, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BusinessMetrics } from '../../src/observability/business-metrics.js';
import { transactionEntry } from '../../src/policies/ledger/ledger-entry.js';
import type { Decision } from '../../src/policies/ledger/decision.js';
import { initialState, type PolicyState } from '../../src/policies/ledger/state.js';

/** The samples of `name` in a registry's JSON, as `labels -> value`. */
async function samples(registry: Pick<Registry, 'getMetricsAsJSON'>, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((each) => each.name === name);
  return Object.fromEntries((metric?.values ?? []).map(({ labels, value }) => [JSON.stringify(labels), value]));
}

describe('BusinessMetrics', () => {
  it('counts each kind of entry by its cents and labels', async () => {
    const registry = new Registry();
    const metrics = new BusinessMetrics(registry);
    metrics.observe({ kind: 'issuance', plan: 'basic', planBefore: 'basic', premium: 34_800, credits: 0 });
    metrics.observe({ kind: 'renewal', plan: 'plus', planBefore: 'plus', premium: 50_400, credits: 0 });
    metrics.observe({ kind: 'change', plan: 'plus', planBefore: 'basic', premium: 4200, credits: 2900 });
    metrics.observe({
      kind: 'cancellation',
      plan: 'plus',
      planBefore: 'plus',
      premium: 0,
      credits: 1000,
      cancellation: { reason: 'non_payment', lapse: true },
    });
    metrics.observe({ kind: 'payment', plan: 'plus', amount: 500 });
    metrics.observe({ kind: 'refund', plan: 'plus', amount: 200 });
    expect(await samples(registry, 'policies_issued_total')).toEqual({
      '{"plan":"basic","type":"issuance"}': 1,
      '{"plan":"plus","type":"renewal"}': 1,
    });
    expect(await samples(registry, 'premium_written_cents_total')).toEqual({ '{"plan":"basic"}': 34_800, '{"plan":"plus"}': 54_600 });
    // A change of plan credits the plan it leaves.
    expect(await samples(registry, 'credits_given_cents_total')).toEqual({ '{"plan":"basic"}': 2900, '{"plan":"plus"}': 1000 });
    expect(await samples(registry, 'policies_cancelled_total')).toEqual({ '{"plan":"plus","reason":"non_payment"}': 1 });
    expect(await samples(registry, 'policies_lapsed_total')).toEqual({ '{"plan":"plus"}': 1 });
    expect(await samples(registry, 'payments_recorded_cents_total')).toEqual({ '{"plan":"plus"}': 500 });
    expect(await samples(registry, 'refunds_recorded_cents_total')).toEqual({ '{"plan":"plus"}': 200 });
  });

  // cluster-metrics.ts aggregates the workers' registries: counters add up, but the past-due
  // count is the database's, read the same by every worker, and must not be multiplied.
  it("adds up the workers' counters under node:cluster, and reports the past-due gauge once", async () => {
    const workers = [new Registry(), new Registry()];
    for (const registry of workers) {
      const metrics = new BusinessMetrics(registry);
      metrics.watchPastDue(async () => 3);
      metrics.observe({ kind: 'payment', plan: 'plus', amount: 700 });
    }
    const instance = AggregatorRegistry.aggregate(await Promise.all(workers.map((registry) => registry.getMetricsAsJSON())));
    expect(await samples(instance, 'policies_past_due')).toEqual({ '{}': 3 });
    expect(await samples(instance, 'payments_recorded_cents_total')).toEqual({ '{"plan":"plus"}': 1400 });
  });
});

describe('the past-due gauge without the database', () => {
  it('keeps its last count and lets the scrape answer', async () => {
    const registry = new Registry();
    const metrics = new BusinessMetrics(registry);
    let away = false;
    metrics.watchPastDue(async () => {
      if (away) throw new Error('connection refused');
      return 4;
    });
    expect(await samples(registry, 'policies_past_due')).toEqual({ '{}': 4 });
    away = true;
    expect(await registry.metrics()).toContain('policies_past_due 4');
  });
});

describe('transactionEntry', () => {
  const state: PolicyState = initialState({
    number: 1,
    effectiveDate: '2026-01-01',
    expirationDate: '2027-01-01',
    fields: { coverageSlug: 'accident-illness-basic' } as PolicyState['timeline'][number]['fields'],
  });
  const decision = (changes: Decision['changes'], charges: Array<{ type: string; amount: number }>, kind: Decision['kind'] = 'change') =>
    ({ kind, effectiveDate: '2026-02-01', changes, charges, event: 'policy.changed', room: { type: kind } }) as unknown as Decision;

  it("puts a change of plan's premiums under the new plan and its credits under the old one", () => {
    const entry = transactionEntry(
      state,
      decision({ coverageSlug: { from: 'accident-illness-basic', to: 'accident-illness-plus' } }, [
        { type: 'credit', amount: -2900 },
        { type: 'premium', amount: 4200 },
      ]),
    );
    expect(entry).toEqual({
      kind: 'change',
      plan: 'accident-illness-plus',
      planBefore: 'accident-illness-basic',
      premium: 4200,
      credits: 2900,
    });
  });

  it("names a cancellation's reason, and a lapse as one", () => {
    const cancellation = decision(
      { cancellation: { from: null, to: { reason: 'non_payment', method: 'pro_rata' } } },
      [{ type: 'credit', amount: -500 }],
      'cancellation',
    );
    expect(transactionEntry(state, cancellation).cancellation).toEqual({ reason: 'non_payment', lapse: false });
    expect(transactionEntry(state, { ...cancellation, lapse: true })).toMatchObject({
      credits: 500,
      cancellation: { reason: 'non_payment', lapse: true },
    });
  });
});
