import { describe, expect, it } from 'vitest';
import { BoundedLabels } from '../../src/observability/bounded-labels.js';
import { routeNamer } from '../../src/observability/route-names.js';
import { withoutLiterals } from '../../src/database/statement-spans.js';
import { defaultSampler, tracingRequested } from '../../src/observability/tracing.js';
import { loadConfig } from '../../src/config.js';

describe('BoundedLabels', () => {
  it('admits values while there is room, and sends one-off values to the overflow once full', () => {
    const labels = new BoundedLabels(3, '(other)');
    expect(['a', 'b', 'a', 'c', 'd', 'b', 'e'].map((value) => labels.label(value))).toEqual([
      'a',
      'b',
      'a',
      'c',
      '(other)',
      'b',
      '(other)',
    ]);
    const distinct = new Set(Array.from({ length: 1_000_000 }, (_, i) => labels.label(`name${i}`)));
    expect(distinct).toEqual(new Set(['(other)']));
  });

  it('keeps the names a frontend really uses through 1,000 random names, whichever came first', () => {
    const frontend = Array.from({ length: 10 }, (_, i) => `FrontendQuery${i}`);
    const random = Array.from({ length: 1_000 }, (_, i) => `Random${i}`);
    const evicted: string[] = [];
    const labels = new BoundedLabels(100, '(other)', (name) => evicted.push(name));
    // The flood first: it fills every place.
    for (const name of random) labels.label(name);
    // The frontend's names, each used a few times: a name seen twice beats the flood's.
    for (let round = 0; round < 3; round++) for (const name of frontend) labels.label(name);
    // Another flood, then the frontend again.
    for (const name of random.map((name) => `${name}b`)) expect(labels.label(name)).toBe('(other)');
    expect(frontend.map((name) => labels.label(name))).toEqual(frontend);
    // Ten random names lost their places (and series), no frontend name did.
    expect(evicted).toHaveLength(10);
    expect(evicted.every((name) => name.startsWith('Random'))).toBe(true);
  });

  it('keeps the names it is told to keep, outside the maximum', () => {
    const labels = new BoundedLabels(2, '(other)');
    labels.keep(['Trusted']);
    for (const name of ['a', 'b', 'c', 'd']) labels.label(name);
    expect(labels.label('Trusted')).toBe('Trusted');
    expect(labels.label('e')).toBe('(other)');
  });

  it('forgets a flood of one-off values, so a name that keeps coming still gets in', () => {
    const labels = new BoundedLabels(2, '(other)');
    for (let round = 0; round < 5; round++) {
      labels.label('a');
      labels.label('b');
    }
    // 'c' must be seen more often than 'a' and 'b' (5 each) while one-off names fill the table of
    // values not admitted (20 places here) and halve it again and again.
    const flood: string[] = [];
    let round = 0;
    while (labels.label('c') !== 'c' && round < 100) {
      for (let i = 0; i < 5; i++) flood.push(labels.label(`flood${round}-${i}`));
      round++;
    }
    expect(round).toBeLessThan(100);
    expect(new Set(flood)).toEqual(new Set(['(other)']));
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
