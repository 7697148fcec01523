import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AddressResolver } from '../organizations/address.type.js';
import { OrganizationResolver } from '../organizations/organization.resolver.js';
import { PolicyResolver } from '../policies/policy.resolver.js';
import { OrganizationPoliciesResolver } from '../policies/organization-policies.resolver.js';
import { QuoteResolver } from '../quotes/quote.resolver.js';
import { CreatePolicyResolver } from '../quotes/create-policy.resolver.js';
import { EventResolver, OrganizationEventsResolver } from '../events/event.resolver.js';
import { ApiKeyResolver, OrganizationApiKeysResolver } from '../api-keys/api-key.resolver.js';
import { WebhookEndpointResolver } from '../webhooks/webhook-endpoint.resolver.js';
import { RequestedDeliveryResolver } from '../webhooks/requested-delivery.resolver.js';
import { AuditLogResolver, OrganizationAuditLogResolver } from '../audit/audit.resolver.js';
import { validateInput } from '../input/validate-input.js';
import { NodeResolver } from '../viewer/node.resolver.js';
import { ViewerResolver } from '../viewer/viewer.resolver.js';
import { ViewerSearchResolver } from '../viewer/viewer-search.resolver.js';
import { callerOf, type RequestContext } from '../graphql/context.js';
import { declaredWrites } from '../graphql/write.js';
import { applyScopes } from '../auth/scope-gate.js';
import { collectReads } from '../graphql/read-audit.js';

/**
 * The schema, built by TypeGraphQL from the entity classes. `@Authorized()` fields raise the
 * request's 401 when there is no principal; input rules run through `validateInput`; every
 * mutation declares its write.
 */
export async function buildServiceSchema(options: { auditReads?: boolean } = {}): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    // AUDIT_READS (contract section 21): only then does any field run a middleware.
    globalMiddlewares: options.auditReads ? [collectReads] : [],
    resolvers: [
      ViewerResolver,
      ViewerSearchResolver,
      NodeResolver,
      OrganizationResolver,
      OrganizationPoliciesResolver,
      CreatePolicyResolver,
      PolicyResolver,
      QuoteResolver,
      AddressResolver,
      EventResolver,
      OrganizationEventsResolver,
      WebhookEndpointResolver,
      RequestedDeliveryResolver,
      ApiKeyResolver,
      OrganizationApiKeysResolver,
      AuditLogResolver,
      OrganizationAuditLogResolver,
    ],
    authChecker: ({ context }: { context: RequestContext }) => {
      callerOf(context);
      return true;
    },
    validateFn: (argValue) => validateInput(argValue),
  });
  // Every mutation declares its write (graphql/write.ts): one without refuses the start, before any request.
  declaredWrites(schema);
  // Every root field declares what it needs of an API key, checked at one gate (auth/scope-gate.ts).
  applyScopes(schema);
  return schema;
}
