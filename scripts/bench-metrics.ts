import { ServiceMetrics } from '../src/observability/metrics.js';
import { microsPerCall } from './microbenchmark.js';

/**
 * The metrics' own work per request, in this process (the bench prints it beside the
 * observability rows): a request counted and timed, and a GraphQL operation counted, a million
 * times each after a warm-up. Prints JSON: microseconds per call.
 */
const metrics = new ServiceMetrics();
const request = microsPerCall(() => metrics.observeRequest('GET', '/api/v1/policy/:id', 200, 0.002), 1_000_000);
const operation = microsPerCall(() => metrics.observeGraphqlOperation({ operationName: 'Policy', operationType: 'query' }), 1_000_000);
console.log(JSON.stringify({ request, operation }));
process.exit(0);
