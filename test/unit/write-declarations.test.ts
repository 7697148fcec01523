import { GraphQLObjectType, GraphQLSchema, GraphQLString, Kind, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { createsSpent, declaredWrites, writtenRecord } from '../../src/graphql/write.js';

/**
 * Every mutation declares its write on its field (graphql/write.ts, issue 37 item 2): the budget
 * it spends and the read that rebuilds its answer. A mutation without one would be a write that
 * no budget charges (security review 3, H2): the service refuses to start with it.
 */
describe('write declarations', () => {
  it('every mutation field of the schema declares the creates budget', async () => {
    const schema = await buildServiceSchema();
    const writes = declaredWrites(schema);
    const mutations = Object.keys(schema.getMutationType()!.getFields()).sort();
    expect([...writes.keys()].sort()).toEqual(mutations);
    for (const [field, write] of writes) expect(write.budget, field).toBe('creates');
    // The reads that rebuild a keyed answer: what READ_OF listed before the declarations.
    expect(Object.fromEntries([...writes].map(([field, write]) => [field, write.readBack]))).toEqual({
      createOrganization: 'organization',
      updateOrganization: 'organization',
      createPolicy: 'policy',
      changePolicy: 'policy',
      cancelPolicy: 'policy',
      reinstatePolicy: 'policy',
      renewPolicy: 'policy',
      recordPayment: 'policy',
      recordRefund: 'policy',
      createQuote: 'quote',
      createWebhookEndpoint: null,
      // Its answer is rebuilt on REST only (the route's rebuild), as the create's: no key on /graphql.
      updateWebhookEndpoint: null,
      deleteWebhookEndpoint: null,
      rotateWebhookEndpointSecret: null,
      // Rebuilt on REST only, from the delivery (or count) the key recorded.
      sendTestWebhook: null,
      redeliverEvent: null,
      recoverWebhookEndpoint: null,
      // A key is shown once: a retry of a create or a rotation is never rebuilt (409 naming the key).
      createApiKey: null,
      rotateApiKey: null,
      revokeApiKey: null,
    });
  });

  it('refuses a schema with a mutation field that declares no write, naming it', () => {
    const declared = { type: GraphQLString, extensions: { write: { budget: 'creates', readBack: null } } };
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
      mutation: new GraphQLObjectType({ name: 'Mutation', fields: { declared, forgotten: { type: GraphQLString } } }),
    });
    expect(() => declaredWrites(schema)).toThrow(/without a @Write declaration: forgotten$/);
  });

  it('counts each declared root field once, through aliases and fragments', async () => {
    const schema = await buildServiceSchema();
    const document = parse(`
      mutation {
        a: updateOrganization(id: "x", input: {}) { id }
        b: updateOrganization(id: "y", input: {}) { id }
        ...More
        ... on Mutation { deleteWebhookEndpoint(id: "z") }
        __typename
      }
      fragment More on Mutation { cancelPolicy(number: 1, input: { effectiveDate: "2030-01-01", reason: "other" }) { number } }
    `);
    const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    expect(createsSpent(schema, operation.selectionSet, document)).toBe(4);
  });

  it('names the record a write declares, the same from a literal, a variable or REST variables', async () => {
    const schema = await buildServiceSchema();
    const field = (text: string) => {
      const operation = parse(text).definitions[0] as OperationDefinitionNode;
      return operation.selectionSet.selections[0] as FieldNode;
    };
    const literal = field('mutation { cancelPolicy(number: 5, input: { effectiveDate: "2030-01-01", reason: "other" }) { number } }');
    const variable = field(
      'mutation ($n: SafeInt!) { cancelPolicy(number: $n, input: { effectiveDate: "2030-01-01", reason: "other" }) { number } }',
    );
    expect(writtenRecord(schema, 'cancelPolicy', { node: literal, variables: {} })).toEqual({ number: 5 });
    expect(writtenRecord(schema, 'cancelPolicy', { node: variable, variables: { n: 5 } })).toEqual({ number: 5 });
    expect(writtenRecord(schema, 'cancelPolicy', { variables: { number: 5, input: {} } })).toEqual({ number: 5 });
    // An argument the executor would refuse is a 400 before the key is claimed.
    const text = field('mutation { cancelPolicy(number: "five", input: { effectiveDate: "2030-01-01", reason: "other" }) { number } }');
    expect(() => writtenRecord(schema, 'cancelPolicy', { node: text, variables: {} })).toThrow(/number/);
    expect(writtenRecord(schema, 'updateOrganization', { variables: { id: 'x', input: {} } })).toEqual({ id: 'x' });
    // A create names no record: its key is scoped to the field (or route) alone.
    expect(writtenRecord(schema, 'createPolicy', { variables: { input: {} } })).toEqual({});
  });
});
