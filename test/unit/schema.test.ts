import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';

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
