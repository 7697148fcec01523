import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { applyScopes, scopeRefusal } from '../../src/auth/scope-gate.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../src/auth/scopes.js';

/**
 * The gate's rule (contract section 20) against a model written from the contract: a token is
 * never refused for scopes; a key is refused a scope it lacks unless it holds that resource's
 * write (a write includes its read, docs/decisions.md); keys never manage keys.
 */
const model = (held: readonly ApiKeyScope[] | undefined, need: ApiKeyScope | 'tokens-only'): boolean => {
  if (held === undefined) return true;
  if (need === 'tokens-only') return false;
  const [resource, access] = need.split(':');
  return held.includes(need) || (access === 'read' && held.includes(`${resource}:write` as ApiKeyScope));
};

describe('the scope gate', () => {
  it('allows and refuses exactly as the model, for every need and every pair of held scopes', () => {
    const helds: (readonly ApiKeyScope[] | undefined)[] = [undefined];
    for (const a of API_KEY_SCOPES) for (const b of API_KEY_SCOPES) helds.push(a === b ? [a] : [a, b]);
    for (const held of helds) {
      for (const need of [...API_KEY_SCOPES, 'tokens-only'] as const) {
        const refusal = scopeRefusal({ sub: 'apikey:1', org: null, scopes: held }, need);
        expect(refusal === null, `${held?.join(',') ?? 'token'} / ${need}`).toBe(model(held, need));
        if (refusal && need !== 'tokens-only') expect(refusal.message).toContain(`"${need}"`);
        if (refusal) expect(refusal.extensions.code).toBe('FORBIDDEN');
      }
    }
  });

  it('refuses a schema with a root field that declares no scope, naming it', () => {
    const declared = { type: GraphQLString, extensions: { scope: 'policies:read' } };
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { declared, forgotten: { type: GraphQLString } } }),
    });
    expect(() => applyScopes(schema)).toThrow(/without a @Scoped declaration: Query.forgotten$/);
  });
});
