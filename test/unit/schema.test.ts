import { readFileSync } from 'node:fs';
import { getNamedType, isEnumType, isInputObjectType, isObjectType, printSchema, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { CANCELLATION_METHODS, CANCELLATION_REASONS } from '../../src/policies/ledger/cancellation-charges.js';
import { CHARGE_TYPES } from '../../src/policies/charge-types.js';
import { PolicyStatus } from '../../src/policies/policy-status.js';
import { TRANSACTION_TYPES } from '../../src/policies/policy-transaction.entity.js';
import { QUOTE_STATUSES } from '../../src/quotes/quote-status.js';
import { openApiDocument } from '../../src/rest/openapi.js';
import type { CancelPolicyMutationVariables } from '../../src/rest/generated/operations.js';

describe('schema/schema.graphql', () => {
  it('is exactly what the code builds (run `npm run schema` after changing the schema)', async () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(printSchema(await buildServiceSchema()) + '\n').toBe(committed);
  });

  it('has the root fields frontends code against (contract section 8)', async () => {
    const schema = await buildServiceSchema();
    const query = schema.getQueryType()!.getFields();
    const mutation = schema.getMutationType()!.getFields();
    expect(String(query.viewer.type)).toBe('Viewer!');
    expect(String(query.organization.type)).toBe('Organization');
    expect(query.organization.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['id: ID!']);
    expect(String(query.policy.type)).toBe('Policy');
    expect(query.policy.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['number: SafeInt!']);
    expect(String(query.coverages.type)).toBe('[Coverage!]!');
    expect(String(mutation.createOrganization.type)).toBe('Organization!');
    expect(mutation.createOrganization.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['input: CreateOrganizationInput!']);
    expect(String(mutation.createPolicy.type)).toBe('Policy!');
    expect(mutation.createPolicy.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['input: CreatePolicyInput!']);
    for (const name of ['Organization', 'Address', 'BankAccount', 'Owner', 'Policy', 'Coverage', 'Charge', 'Viewer']) {
      expect(schema.getType(name), name).toBeDefined();
    }
  });
});

/**
 * Contract section 14, "Bounded ledgers": in GraphQL the closed sets are enums, as they are in
 * OpenAPI. The values are written here from the contract; each must equal its constant in src,
 * the GraphQL enum's values, and every field that holds one, in both documents. (BillingStatus
 * comes with billing, section 19.)
 */
describe('closed sets', () => {
  const CONTRACT: Record<string, { values: readonly string[]; constant: readonly string[]; fields: string[] }> = {
    CancellationReason: {
      values: ['insured_request', 'non_payment', 'underwriting', 'fraud', 'free_look', 'other'],
      constant: CANCELLATION_REASONS,
      fields: ['PolicyCancellation.reason', 'CancelPolicyInput.reason'],
    },
    CancellationMethod: {
      values: ['flat', 'short_rate', 'pro_rata'],
      constant: CANCELLATION_METHODS,
      fields: ['PolicyCancellation.method'],
    },
    ChargeType: { values: ['premium', 'credit', 'fee', 'reversal'], constant: CHARGE_TYPES, fields: ['Charge.type', 'QuotedCharge.type'] },
    PolicyStatus: {
      values: ['pending', 'active', 'cancelled', 'expired'],
      constant: Object.values(PolicyStatus),
      fields: ['Policy.status', 'Organization.policies(status)'],
    },
    TransactionType: {
      values: ['issuance', 'change', 'cancellation', 'reinstatement', 'renewal'],
      constant: TRANSACTION_TYPES,
      fields: ['PolicyTransaction.type'],
    },
    QuoteStatus: { values: ['open', 'issued', 'expired'], constant: QUOTE_STATUSES, fields: ['Quote.status'] },
  };

  /** The named type of `Type.field`, of an output or an input type, or of an argument: `Type.field(argument)`. */
  function typeAt(schema: GraphQLSchema, path: string) {
    const [, typeName, fieldName, argumentName] = /^(\w+)\.(\w+)(?:\((\w+)\))?$/.exec(path)!;
    const type = schema.getType(typeName);
    if (!isObjectType(type) && !isInputObjectType(type)) throw new Error(`${typeName} has no fields`);
    const field = type.getFields()[fieldName];
    const argument = argumentName && 'args' in field ? field.args.find(({ name }) => name === argumentName) : undefined;
    return getNamedType((argument ?? field).type);
  }

  it("are the contract's values, in its order, in their one constant and their GraphQL enum", async () => {
    const schema = await buildServiceSchema();
    for (const [name, { values, constant }] of Object.entries(CONTRACT)) {
      expect(constant, name).toEqual(values);
      const type = schema.getType(name);
      expect(isEnumType(type), name).toBe(true);
      // A value's name is its REST string and what resolvers return: GraphQL and REST answer the same bytes.
      expect(isEnumType(type) && type.getValues().map(({ name, value }) => [name, value]), name).toEqual(
        values.map((value) => [value, value]),
      );
    }
  });

  it('type every field that holds one, in GraphQL and in OpenAPI', async () => {
    const schema = await buildServiceSchema();
    for (const [name, { fields }] of Object.entries(CONTRACT)) {
      for (const field of fields) expect(typeAt(schema, field).name, field).toBe(name);
    }
    const { components } = openApiDocument(schema, 'test') as unknown as { components: { schemas: Record<string, Json> } };
    const at = (component: string, ...path: string[]) =>
      path.reduce<Json>(
        (schema, key) => (key === '[]' ? schema.items! : (schema.oneOf?.[0] ?? schema).properties![key]),
        components.schemas[component],
      );
    expect(at('Policy', 'charges', '[]', 'type').enum).toEqual(CONTRACT.ChargeType.values);
    expect(at('Policy', 'status').enum).toEqual(CONTRACT.PolicyStatus.values);
    expect(at('Policy', 'cancellation', 'reason').enum).toEqual(CONTRACT.CancellationReason.values);
    expect(at('Policy', 'cancellation', 'method').enum).toEqual(CONTRACT.CancellationMethod.values);
    expect(at('PolicyTransaction', 'type').enum).toEqual(CONTRACT.TransactionType.values);
    expect(at('CancelPolicyRequest', 'reason').enum).toEqual(CONTRACT.CancellationReason.values);
    expect(at('Quote', 'status').enum).toEqual(CONTRACT.QuoteStatus.values);
    // A quote's schedule only ever holds premiums.
    expect(at('Quote', 'charges', '[]', 'type').enum).toEqual(['premium']);
  });

  it('make a typo in a cancellation reason a compile error for a generated client (real-clients-3 F24)', () => {
    const input: CancelPolicyMutationVariables['input'] = { effectiveDate: '2030-01-01', reason: 'insured_request' };
    // @ts-expect-error "insured_requst" is not a CancellationReason: `tsc` (npm test) fails if this compiles.
    const typo: CancelPolicyMutationVariables['input'] = { effectiveDate: '2030-01-01', reason: 'insured_requst' };
    expect([input.reason, typo.reason]).toEqual(['insured_request', 'insured_requst']);
  });
});

interface Json {
  enum?: string[];
  items?: Json;
  oneOf?: Json[];
  properties?: Record<string, Json>;
}
