import 'reflect-metadata';
import { parse } from 'graphql';
import { buildServiceSchema } from '../src/graphql-server/schema.js';
import { assertQueryCost, queryCost } from '../src/operations/query-cost.js';
import { microsPerCall } from './microbenchmark.js';

/**
 * `node dist/scripts/bench-query-cost.js`: what the cost limit costs a request of the bench's
 * GraphQL policy query, counted afresh (as before the per-document cache) and as kept (the same
 * document with a new `$number`). Prints JSON: microseconds per call, after a warm-up.
 */
const schema = await buildServiceSchema();
const charges = 'id type periodStart periodEnd dueDate amount currency status transactionId reverses';
const document = parse(
  `query Policy($number: SafeInt!) { policy(number: $number) { number coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency } charges { ${charges} } organization { id name parentId } } }`,
);
const counted = microsPerCall((i) => queryCost(schema, document, { variables: { number: i } }), 20_000);
const kept = microsPerCall((i) => assertQueryCost(schema, document, { variables: { number: i } }, 5000), 20_000);
console.log(JSON.stringify({ countedMicros: Number(counted.toFixed(2)), keptMicros: Number(kept.toFixed(2)) }));
process.exit(0);
