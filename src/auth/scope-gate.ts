import {
  defaultFieldResolver,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { forbidden, type ServiceError } from '../errors/errors.js';
import type { Principal } from './principal.js';
import type { ApiKeyScope } from './scopes.js';

/**
 * The one gate of API key scopes (contract section 20), for REST and GraphQL alike: REST routes
 * run GraphQL documents, so a scope declared on a field is checked wherever the field is reached.
 *
 * What a field needs is declared once, on the field (`@Scoped('policies:write')`) or on its type
 * (`@ScopedType('organizations:read', { open: [...] })`: every field of the type but the open ones,
 * the reference a policy's answer embeds). Every root field must declare its scope, or the
 * service refuses to start; nested fields declare one where they lead into another resource
 * (`Organization.policies`). A token has no scopes: the gate lets it through and the access rule
 * alone decides. A write scope grants its read (Stripe's restricted keys: "Write" includes
 * read), so a key that may create a policy may read the answer and the policy after it.
 */
export type ScopeRequirement =
  | ApiKeyScope
  /** Any caller with a principal (the `viewer`, the node lookup, which checks the scope of what it finds). */
  | 'any'
  /** Tokens only: keys cannot create, rotate or revoke keys. */
  | 'tokens-only';

const EXTENSION = 'scope';
const OPEN = 'scopeOpenFields';

/** Declares what a field needs of an API key. */
export const Scoped = (required: ScopeRequirement) => Extensions({ [EXTENSION]: required });

/** Declares what every field of a type needs of an API key, except the `open` ones. */
export const ScopedType = (required: ApiKeyScope, options: { open: readonly string[] }) =>
  Extensions({ [EXTENSION]: required, [OPEN]: options.open });

/** The read scope a write scope includes. */
const INCLUDED_READS: Partial<Record<ApiKeyScope, ApiKeyScope>> = {
  'organizations:write': 'organizations:read',
  'policies:write': 'policies:read',
};

/** The 403 for a key without what `required` asks, or null (a token, or a key that has it). */
export function scopeRefusal(principal: Principal, required: ScopeRequirement): ServiceError | null {
  const { scopes } = principal;
  if (scopes === undefined || required === 'any') return null;
  if (required === 'tokens-only') return forbidden('An API key cannot create, rotate or revoke API keys: use a token.');
  if (scopes.includes(required) || scopes.some((scope) => INCLUDED_READS[scope] === required)) return null;
  return forbidden(`This API key lacks the scope "${required}" (it has: ${scopes.join(', ')}).`, { requiredScope: required });
}

/** Throws the 403 of `scopeRefusal`: for a resolver whose scope depends on what it found (`node`). */
export function assertScope(principal: Principal, required: ScopeRequirement): void {
  const refusal = scopeRefusal(principal, required);
  if (refusal) throw refusal;
}

const declared = new WeakMap<GraphQLSchema, ReadonlyMap<string, ScopeRequirement>>();

/**
 * Puts the gate on every field that declares a scope (its own or its type's), once, when the
 * schema is built, and returns every declaration by `Type.field`. A root field without one is an
 * error naming it: the service refuses to start rather than let a key reach it unchecked.
 */
export function applyScopes(schema: GraphQLSchema): ReadonlyMap<string, ScopeRequirement> {
  const existing = declared.get(schema);
  if (existing) return existing;
  const requirements = new Map<string, ScopeRequirement>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const typeScope = type.extensions[EXTENSION] as ApiKeyScope | undefined;
    const open = (type.extensions[OPEN] as readonly string[] | undefined) ?? [];
    for (const field of Object.values(type.getFields())) {
      const required = (field.extensions[EXTENSION] as ScopeRequirement | undefined) ?? (open.includes(field.name) ? undefined : typeScope);
      if (required === undefined) continue;
      requirements.set(`${type.name}.${field.name}`, required);
      if (required !== 'any') gate(field, required);
    }
  }
  const roots = [schema.getQueryType(), schema.getMutationType()].flatMap((root) =>
    root ? Object.values(root.getFields()).map((field) => `${root.name}.${field.name}`) : [],
  );
  const missing = roots.filter((name) => !requirements.has(name));
  if (missing.length > 0) throw new Error(`Root fields without a @Scoped declaration: ${missing.join(', ')}`);
  declared.set(schema, requirements);
  return requirements;
}

/** What the gate reads of a request's context (graphql/context.ts): who is asking. */
interface GateContext {
  authentication: { principal: Principal | null };
}

function gate(field: GraphQLField<unknown, GateContext>, required: ScopeRequirement): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = (source, args, context, info) => {
    const principal = context.authentication.principal;
    // A token's principal has no scopes: one property read, and on.
    if (principal?.scopes !== undefined) assertScope(principal, required);
    return resolve(source, args, context, info);
  };
}

/**
 * The scopes a document needs of a key, as far as its text tells (every field it selects, in
 * fragments too, whatever `@skip`/`@include` decide): what the REST reference lists for each route.
 */
export function documentScopes(schema: GraphQLSchema, document: DocumentNode): Exclude<ScopeRequirement, 'any'>[] {
  const requirements = applyScopes(schema);
  const typeInfo = new TypeInfo(schema);
  const needed = new Set<Exclude<ScopeRequirement, 'any'>>();
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const required = parent && requirements.get(`${parent.name}.${node.name.value}`);
        if (required && required !== 'any') needed.add(required);
      },
    }),
  );
  // A write scope grants its read: a create needs only the write.
  return [...needed]
    .filter((scope) => ![...needed].some((other) => other !== scope && INCLUDED_READS[other as ApiKeyScope] === scope))
    .sort();
}
