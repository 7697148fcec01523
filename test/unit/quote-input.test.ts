import { getMetadataStorage } from 'class-validator';
import { isInputObjectType, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { CreatePolicyInput, QUOTED_FIELDS } from '../../src/policies/policy.input.js';
import { CreateQuoteInput, REFUSED_QUOTE_FIELDS } from '../../src/quotes/quote.input.js';

/**
 * Contract section 14: a quote takes the policy create's body without number, cvc and
 * internalID, under the same rules: the create's quoted fields (QUOTED_FIELDS, those a body with
 * quoteId may not send). A field a policy gains later is the policy's own unless it is made a
 * quoted field (README, "How to add things"), so a quote does not take it. CreateQuoteInput is
 * its own class (quote.input.ts says why), so this holds it to CreatePolicyInput: a quoted field
 * or rule added to one and not the other fails.
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

/** The create's quoted fields. */
const quotedOnly = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).filter(([field]) => (QUOTED_FIELDS as readonly string[]).includes(field)));

/**
 * The create's fields a quote fixes are nullable there (with quoteId they are left out, without
 * it crossFieldErrors requires them) and their rules wait on quoteId (ValidateIf): the quote's
 * stay required and unconditional, so both are compared without that loosening.
 */
const required = (types: Record<string, string>, fields: readonly string[]) =>
  Object.fromEntries(Object.entries(types).map(([field, type]) => [field, fields.includes(field) ? `${type}!` : type]));
const unconditional = (byField: Record<string, string[]>) =>
  Object.fromEntries(
    Object.entries(byField)
      .map(([field, list]) => [field, list.filter((rule) => !rule.startsWith('conditionalValidation'))])
      .filter(([, list]) => list.length > 0),
  );

describe('CreateQuoteInput', () => {
  it('has the quoted fields of CreatePolicyInput, with the same types (required where the create requires them without quoteId)', () => {
    const requiredInQuote = Object.entries(fieldTypes('CreateQuoteInput'))
      .filter(([, type]) => type.endsWith('!'))
      .map(([field]) => field);
    expect(requiredInQuote.sort()).toEqual([
      'coverageSlug',
      'effectiveDate',
      'expirationDate',
      'ownerFirstname',
      'ownerLastname',
      'petName',
    ]);
    expect(fieldTypes('CreateQuoteInput')).toEqual(required(quotedOnly(fieldTypes('CreatePolicyInput')), requiredInQuote));
    for (const field of REFUSED_QUOTE_FIELDS) {
      expect(fieldTypes('CreatePolicyInput')).toHaveProperty(field);
      expect(QUOTED_FIELDS).not.toContain(field);
    }
  });

  it('has the same rules on every field', () => {
    const policy = unconditional(quotedOnly(rules(CreatePolicyInput)));
    expect(Object.keys(policy).length).toBeGreaterThan(5);
    expect(rules(CreateQuoteInput)).toEqual(policy);
  });
});
