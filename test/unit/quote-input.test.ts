import { getMetadataStorage } from 'class-validator';
import { isInputObjectType, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { CreatePolicyInput } from '../../src/policies/policy.input.js';
import { CreateQuoteInput, REFUSED_QUOTE_FIELDS } from '../../src/quotes/quote.input.js';

/**
 * Contract section 14: a quote takes the policy create's body without number, cvc and
 * internalID, under the same rules. CreateQuoteInput is its own class (quote.input.ts says why),
 * so this holds it to CreatePolicyInput: a field or rule added to one and not the other fails.
 */
let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildServiceSchema();
});

function fieldTypes(name: string): Record<string, string> {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
  return Object.fromEntries(Object.values(type.getFields()).map((field) => [field.name, String(field.type)]));
}

/** Each property's rules as class-validator holds them: name and arguments, in declaration order. */
function rules(target: new () => object): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)) {
    (byField[rule.propertyName] ??= []).push(`${rule.name ?? rule.type}(${JSON.stringify(rule.constraints ?? [])})`);
  }
  return byField;
}

const withoutRefused = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).filter(([field]) => !(REFUSED_QUOTE_FIELDS as readonly string[]).includes(field)));

describe('CreateQuoteInput', () => {
  it('has the fields of CreatePolicyInput but number, cvc and internalID, with the same types', () => {
    expect(fieldTypes('CreateQuoteInput')).toEqual(withoutRefused(fieldTypes('CreatePolicyInput')));
    for (const field of REFUSED_QUOTE_FIELDS) expect(fieldTypes('CreatePolicyInput')).toHaveProperty(field);
  });

  it('has the same rules on every field', () => {
    const policy = withoutRefused(rules(CreatePolicyInput));
    expect(Object.keys(policy).length).toBeGreaterThan(5);
    expect(rules(CreateQuoteInput)).toEqual(policy);
  });
});
