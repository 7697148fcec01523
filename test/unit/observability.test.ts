import { describe, expect, it } from 'vitest';
import { BoundedLabels } from '../../src/observability/bounded-labels.js';
import { routeNamer } from '../../src/observability/route-names.js';
import { withoutLiterals } from '../../src/database/statement-spans.js';
import { tracingRequested } from '../../src/observability/tracing.js';
import { loadConfig } from '../../src/config.js';

describe('BoundedLabels', () => {
  it('admits the first `max` distinct values, and sends every later one to the overflow', () => {
    const labels = new BoundedLabels(3, '(other)');
    expect(['a', 'b', 'a', 'c', 'd', 'b', 'e'].map((value) => labels.label(value))).toEqual(['a', 'b', 'a', 'c', '(other)', 'b', '(other)']);
    const distinct = new Set(Array.from({ length: 1_000_000 }, (_, i) => labels.label(`name${i}`)));
    expect(distinct.size).toBe(1);
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
    expect(withoutLiterals(`insert into "owner" ("id", "tax_id_last4", "ownership") values ('a69f', '4321', 100), ('it''s', E'x', -3.5)`)).toBe(
      `insert into "owner" ("id", "tax_id_last4", "ownership") values (?, ?, ?), (?, ?, ?)`,
    );
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
