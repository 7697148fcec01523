import { getOperationAST, isInputObjectType, isObjectType, parse, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { BANK_ACCOUNT_COLUMNS, ORGANIZATION_COLUMNS, OWNER_COLUMNS } from '../../src/organizations/organization.reads.js';
import { CHARGE_COLUMNS, POLICY_COLUMNS } from '../../src/policies/policy.reads.js';
import { selectedFields } from '../../src/rest/openapi-schemas.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { QUOTE_COLUMNS } from '../../src/quotes/quote.reads.js';

/**
 * What ties a field to the places that serve it (README, "How to add things"): a field of an
 * entity's type must be served by its read map (derived from the write map), sent by the
 * create's input (and the change's, for organizations) and answered by the REST routes (the
 * resource's answer fragment). Each test here fails when one of those is forgotten;
 * test/e2e/entity-columns.test.ts ties the entity to its migration, and the round-trip tests
 * (test/e2e/*-round-trip.test.ts) check the values themselves.
 */
const READ_MODELS: Record<string, Readonly<Record<string, string>>> = {
  Organization: ORGANIZATION_COLUMNS,
  Policy: POLICY_COLUMNS,
  Charge: CHARGE_COLUMNS,
  Owner: OWNER_COLUMNS,
  BankAccount: BANK_ACCOUNT_COLUMNS,
  Quote: QUOTE_COLUMNS,
};

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildServiceSchema();
});

function fieldsOf(typeName: string): string[] {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  return Object.keys(type.getFields());
}

/** Fields served by a `@FieldResolver` of the resolver class for this object type. */
function fieldResolversOf(typeName: string): string[] {
  const storage = getMetadataStorage();
  return storage.fieldResolvers
    .filter((resolver) => {
      const target = resolver.getObjectType?.();
      return storage.objectTypes.some((type) => type.target === target && type.name === typeName);
    })
    .map((resolver) => resolver.schemaName);
}

function inputFieldsOf(typeName: string): string[] {
  const type = schema.getType(typeName);
  if (!isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
  return Object.keys(type.getFields());
}

/** The fields a route's document selects on its root field, through the fragments it spreads. */
function selectedBy(method: string, path: string): string[] {
  const route = REST_ROUTES.find((candidate) => candidate.method === method && candidate.path === path)!;
  const document = parse(route.document);
  const [root] = selectedFields(document, getOperationAST(document)!.selectionSet);
  if (!root.selectionSet) throw new Error('one root field');
  return selectedFields(document, root.selectionSet).map((selection) => selection.name.value);
}

describe('read models', () => {
  it.each(Object.keys(READ_MODELS))('every field of %s is served by its column map or a field resolver', (typeName) => {
    const served = new Set([...Object.keys(READ_MODELS[typeName]), ...fieldResolversOf(typeName)]);
    expect(fieldsOf(typeName).filter((field) => !served.has(field))).toEqual([]);
  });

  it.each(Object.keys(READ_MODELS))('every column %s reads is a field of the type (no written-only column is read)', (typeName) => {
    // The policy's organization id serves the joins and batches behind Policy.organization.
    const internal = typeName === 'Policy' ? ['organizationId'] : [];
    const fields = fieldsOf(typeName);
    expect(Object.keys(READ_MODELS[typeName]).filter((column) => !fields.includes(column) && !internal.includes(column))).toEqual([]);
  });

  it('every column of an organization but its id and version can be sent when creating one, and all but those and parentId when changing one', () => {
    const input = inputFieldsOf('CreateOrganizationInput');
    const serverMade = ['id', 'version'];
    expect(Object.keys(ORGANIZATION_COLUMNS).filter((field) => !serverMade.includes(field) && !input.includes(field))).toEqual([]);
    const change = inputFieldsOf('UpdateOrganizationInput');
    expect(
      Object.keys(ORGANIZATION_COLUMNS).filter((field) => ![...serverMade, 'parentId'].includes(field) && !change.includes(field)),
    ).toEqual([]);
    expect(change).not.toContain('parentId');
  });

  it('every column of a policy but its id and coverage snapshot can be sent when creating one', () => {
    const input = inputFieldsOf('CreatePolicyInput');
    const made = ['id', 'coverage'];
    expect(Object.keys(POLICY_COLUMNS).filter((field) => !made.includes(field) && !input.includes(field))).toEqual([]);
  });

  it('the REST create routes answer with every field of what they create (connections aside)', () => {
    const connections = ['parent', 'children', 'policies', 'events', 'apiKeys', 'auditLog'];
    const organization = selectedBy('POST', '/api/v1/organization');
    expect(fieldsOf('Organization').filter((field) => !connections.includes(field) && !organization.includes(field))).toEqual([]);
    // REST names a policy by its number: its internal id is for GraphQL clients (node, caches).
    const policy = selectedBy('POST', '/api/v1/policy');
    expect(fieldsOf('Policy').filter((field) => !['id', 'transactions', 'payments'].includes(field) && !policy.includes(field))).toEqual(
      [],
    );
  });

  it('the quote routes answer with every field of a quote, the create as the read', () => {
    for (const [method, path] of [
      ['POST', '/api/v1/quote'],
      ['GET', '/api/v1/quote/:id'],
    ]) {
      expect(selectedBy(method, path).sort(), `${method} ${path}`).toEqual(fieldsOf('Quote').sort());
    }
  });
});
