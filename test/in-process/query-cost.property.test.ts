import fc from 'fast-check';
import {
  getNamedType,
  isCompositeType,
  isLeafType,
  isNonNullType,
  parse,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryCost } from '../../src/operations/query-cost.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

const MAX_COST = 5000;
const DEADLINE_MS = 10_000;

/** Every field of the answer: the work the service really did, which the cost must bound. */
function answeredFields(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + answeredFields(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, item) => sum + 1 + answeredFields(item), 0);
}

/**
 * Property (contract section 12): a document built at random from the schema, with aliases,
 * inline fragments, named fragments spread anywhere (reused, so they multiply), nested
 * connections of any page size and sometimes the fragment "padding" of the security review, is
 * either refused before it runs, or accepted with a computed cost within the limit that bounds
 * the fields it really answers, and finishes within the deadline. Through the operation core in
 * process: Apollo Server's parse and validation, the cost check, execution.
 */
describe('query cost (property-based)', () => {
  const service = useInProcessService({
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
  });
  let token: string;
  let schema: GraphQLSchema;
  let organizationId: string;
  let policyNumber: number;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
    schema = service.schema;
    // Data for the walks to find: children with owners, accounts and policies with charges.
    await service.request('POST', '/api/v1/policy', { token, body: policyBody() });
    for (let i = 0; i < 4; i++) {
      const child = await service.request('POST', '/api/v1/organization', {
        token,
        body: organizationBody({
          owners: [{ firstname: 'A', lastname: 'B', ownership: 50 }],
          bankAccounts: [{ routing: '110000000', account: '000123456789' }],
        }),
      });
      for (let j = 0; j < 3; j++) {
        const policy = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId: child.body.id }) });
        policyNumber = policy.body.number;
      }
    }
  });

  function randomDocument(g: fc.GeneratorValue): string {
    const fragments: Array<{ name: string; type: string; body: string }> = [];
    const argumentsFor = (field: GraphQLField<unknown, unknown>): string | null => {
      const given: string[] = [];
      for (const argument of field.args) {
        if (argument.name === 'id') given.push(`id: "${organizationId}"`);
        else if (argument.name === 'number') given.push(`number: ${policyNumber}`);
        else if (argument.name === 'first') given.push(`first: ${g(fc.integer, { min: 1, max: 100 })}`);
        else if (isNonNullType(argument.type)) return null; // an argument we cannot fill: skip the field
      }
      return given.length > 0 ? `(${given.join(', ')})` : '';
    };
    const fieldOf = (type: GraphQLObjectType, depth: number): string => {
      const fields = Object.values(type.getFields()).filter((field) => argumentsFor(field) !== null && !field.name.startsWith('create'));
      // Indexes, not GraphQL objects, go through fast-check (it prints what it generates).
      const field = fields[g(fc.integer, { min: 0, max: fields.length - 1 })];
      const named = getNamedType(field.type);
      const alias = g(fc.integer, { min: 0, max: 7 }) === 0 ? `${g(fc.constantFrom, 'a', 'b', 'c')}${depth}: ` : '';
      if (isLeafType(named)) return `${alias}${field.name}`;
      if (!isCompositeType(named) || depth > 6) return '__typename';
      return `${alias}${field.name}${argumentsFor(field)} { ${selection(named as GraphQLObjectType, depth + 1)} }`;
    };
    const selection = (type: GraphQLObjectType, depth: number): string => {
      const parts: string[] = [];
      for (let i = g(fc.integer, { min: 1, max: 3 }); i > 0; i--) {
        const kind = g(fc.constantFrom, 'field', 'field', 'field', 'field', 'field', 'inline', 'spread', 'reuse');
        const reusable = fragments.filter((fragment) => fragment.type === type.name);
        if (kind === 'inline') parts.push(`... on ${type.name} { ${selection(type, depth + 1)} }`);
        else if (kind === 'reuse' && reusable.length > 0)
          parts.push(`...${reusable[g(fc.integer, { min: 0, max: reusable.length - 1 })].name}`);
        else if (kind === 'spread') {
          const body = selection(type, depth + 1);
          const name = `F${fragments.length}`;
          fragments.push({ name, type: type.name, body });
          parts.push(`...${name}`);
        } else parts.push(fieldOf(type, depth));
      }
      return parts.join(' ');
    };
    let root = selection(schema.getQueryType()!, 0);
    if (g(fc.integer, { min: 0, max: 4 }) === 0) {
      // The review's padding: spreads of spreads, each level multiplying the one below.
      const levels = g(fc.integer, { min: 2, max: 4 });
      const fanOut = g(fc.integer, { min: 2, max: 12 });
      for (let level = 1; level <= levels; level++) {
        const inner = level === levels ? '__typename '.repeat(fanOut) : `...PAD${level + 1} `.repeat(fanOut);
        fragments.push({ name: `PAD${level}`, type: 'Query', body: inner });
      }
      root += ' ...PAD1';
    }
    return `query { ${root} } ${fragments.map((fragment) => `fragment ${fragment.name} on ${fragment.type} { ${fragment.body} }`).join(' ')}`;
  }

  it('accepts only documents whose cost is within the limit and bounds their answer, all within the deadline', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const document = randomDocument(g);
        const started = performance.now();
        const response = await service.graphql(document, {}, token);
        const elapsed = performance.now() - started;
        expect(elapsed).toBeLessThan(DEADLINE_MS);
        expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
        if (response.status !== 200) {
          expect(response.status).toBe(400);
          return;
        }
        accepted++;
        // Accepted: the cost must be computable (the old check failed open when it was not)...
        const cost = queryCost(schema, parse(document), {});
        expect(cost).toBeLessThanOrEqual(MAX_COST);
        // ...and an upper bound of what was answered.
        expect(answeredFields(response.body.data)).toBeLessThanOrEqual(cost);
      }),
      { numRuns: 200 },
    );
    // The property is about accepted documents: enough of them must have been tried.
    expect(accepted).toBeGreaterThan(50);
  });
});
