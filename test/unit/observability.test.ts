import { describe, expect, it } from 'vitest';
import { DeclaredLabels } from '../../src/observability/declared-labels.js';
import { routeNamer } from '../../src/observability/route-names.js';
import { withoutLiterals } from '../../src/database/statement-spans.js';
import { defaultSampler, tracingRequested } from '../../src/observability/tracing.js';
import { loadConfig } from '../../src/config.js';

describe('DeclaredLabels', () => {
  it('labels the declared values alone, and sends every other value to the overflow', () => {
    const labels = new DeclaredLabels('(other)', ['Trusted']);
    labels.declare(['FromRest', 'FromSetting']);
    expect(['Trusted', 'FromRest', 'FromSetting', 'Invented', 'trusted'].map((value) => labels.label(value))).toEqual([
      'Trusted',
      'FromRest',
      'FromSetting',
      '(other)',
      '(other)',
    ]);
  });

  // Security review 3, L3: 20 names sent 3 times each, then 120 invented names 5 times each,
  // evicted all 20 when labels were admitted by frequency.
  it('keeps the declared names through 120 invented names sent 5 times each, and gives none of those a label', () => {
    const declared = Array.from({ length: 20 }, (_, i) => `Frontend${i}`);
    const labels = new DeclaredLabels('(other)', declared);
    for (let round = 0; round < 3; round++) expect(declared.map((name) => labels.label(name))).toEqual(declared);
    const invented = Array.from({ length: 120 }, (_, i) => `Invented${i}`);
    const given = new Set<string>();
    for (let round = 0; round < 5; round++) for (const name of invented) given.add(labels.label(name));
    expect(given).toEqual(new Set(['(other)']));
    expect(declared.map((name) => labels.label(name))).toEqual(declared);
  });
});

describe('routeNamer', () => {
  const routeOf = routeNamer(['/graphql', '/api/v1/policy', '/api/v1/policy/:id', '/api/v1/webhook-endpoints/:id']);

  it('names a path by the pattern it fits, and anything else (unmatched)', () => {
    expect(routeOf('/graphql')).toBe('/graphql');
    expect(routeOf('/graphql/')).toBe('/graphql');
    expect(routeOf('/api/v1/policy')).toBe('/api/v1/policy');
    expect(routeOf('/api/v1/policy/123')).toBe('/api/v1/policy/:id');
    expect(routeOf('/api/v1/webhook-endpoints/abc-def')).toBe('/api/v1/webhook-endpoints/:id');
    expect(routeOf('/api/v1/policy/1/2')).toBe('(unmatched)');
    expect(routeOf('/api/v1/policyx')).toBe('(unmatched)');
    expect(routeOf('/wp-admin.php')).toBe('(unmatched)');
  });
});

describe('withoutLiterals', () => {
  it('replaces quoted strings and numbers, keeping names, placeholders and structure', () => {
    expect(
      withoutLiterals(`insert into "owner" ("id", "tax_id_last4", "ownership") values ('a69f', '4321', 100), ('it''s', E'x', -3.5)`),
    ).toBe(`insert into "owner" ("id", "tax_id_last4", "ownership") values (?, ?, ?), (?, ?, ?)`);
    expect(withoutLiterals('select p.id from policy p where p.number = $1 and o.path[1] = $12 limit 51')).toBe(
      'select p.id from policy p where p.number = $1 and o.path[?] = $12 limit ?',
    );
  });
});

describe('tracingRequested', () => {
  it('is on with an OTLP endpoint or a named exporter, off with none, `none`, or OTEL_SDK_DISABLED', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });
});

describe('LOG_FORMAT', () => {
  it('is pretty on a terminal outside production, JSON otherwise, and either when asked', () => {
    expect(loadConfig({ NODE_ENV: 'development' }, true).logFormat).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'development' }, false).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test', LOG_FORMAT: 'pretty' }, false).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be one of pretty, json/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('defaultSampler', () => {
  it('samples parent-based, one trace in ten, when OTEL_TRACES_SAMPLER is not set (contract section 13)', () => {
    expect(String(defaultSampler({}))).toBe(
      'ParentBased{root=TraceIdRatioBased{0.1}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    expect(String(defaultSampler({ OTEL_TRACES_SAMPLER: ' ' }))).toContain('TraceIdRatioBased{0.1}');
  });

  it('leaves a set OTEL_TRACES_SAMPLER to the SDK', () => {
    expect(defaultSampler({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(defaultSampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBeUndefined();
  });
});
