import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/outbox/record-event.js';
import { DISABLED_BY_REQUEST, endpointChanges, patchedEndpoint } from '../../src/webhooks/update-webhook-endpoint.js';
import type { UpdateWebhookEndpointInput } from '../../src/webhooks/webhook-endpoint.input.js';

/**
 * A webhook endpoint's change as a merge patch (contract section 22), without a database: the
 * stored fields after the patch, whether it disables or enables the endpoint, and the audit
 * entry's `changes` as reads show the fields (test/e2e/webhook-endpoint-update.test.ts has them
 * against the service).
 */
const active = {
  url: 'https://hooks.example/a',
  events: ['policy.created'],
  description: 'ops',
  rateLimitPerSecond: null,
  disabled: false,
  disabledReason: null,
};
const patch = (fields: Partial<UpdateWebhookEndpointInput>) => fields as UpdateWebhookEndpointInput;

describe('a webhook endpoint after a change', () => {
  it('keeps what is absent, sets what is sent, and removes what is null', () => {
    expect(patchedEndpoint(active, patch({}))).toEqual({ next: active, change: 'keep' });
    expect(patchedEndpoint(active, patch({ url: 'https://hooks.example/b', rateLimitPerSecond: 5 })).next).toEqual({
      ...active,
      url: 'https://hooks.example/b',
      rateLimitPerSecond: 5,
    });
    expect(patchedEndpoint(active, patch({ events: null, description: null })).next).toEqual({
      ...active,
      events: null,
      description: null,
    });
  });

  it('disables an active endpoint by request and enables a disabled one; otherwise the switch changes nothing', () => {
    expect(patchedEndpoint(active, patch({ enabled: false }))).toEqual({
      next: { ...active, disabled: true, disabledReason: DISABLED_BY_REQUEST },
      change: 'disable',
    });
    expect(patchedEndpoint(active, patch({ enabled: true }))).toEqual({ next: active, change: 'keep' });
    const gone = { ...active, disabled: true, disabledReason: '410 Gone' };
    expect(patchedEndpoint(gone, patch({ enabled: true }))).toEqual({
      next: { ...gone, disabled: false, disabledReason: null },
      change: 'enable',
    });
    // Disabled already: it keeps its reason.
    expect(patchedEndpoint(gone, patch({ enabled: false }))).toEqual({ next: gone, change: 'keep' });
  });

  it('lists in changes only the fields that differ as reads show them', () => {
    expect(endpointChanges(active, active)).toEqual({});
    // No filter reads as every type: sending every type to an endpoint without one changes nothing shown.
    const everyType = { ...active, events: null };
    expect(endpointChanges(everyType, { ...everyType, events: [...EVENT_TYPES] })).toEqual({});
    expect(endpointChanges(active, { ...active, events: null, description: null })).toEqual({
      events: { from: ['policy.created'], to: [...EVENT_TYPES] },
      description: { from: 'ops', to: null },
    });
    const { next } = patchedEndpoint(active, patch({ enabled: false }));
    expect(endpointChanges(active, next)).toEqual({
      status: { from: 'active', to: 'disabled' },
      disabledReason: { from: null, to: DISABLED_BY_REQUEST },
    });
  });
});
