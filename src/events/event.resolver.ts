import { Arg, Args, ArgsType, Authorized, Ctx, Field, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { GraphQLResolveInfo } from 'graphql';
import type { Page } from '../graphql/batch.js';
import { jsonCostBeyondEstimate, nodeSelects, pageWithinMeter } from '../graphql/cost-meter.js';
import type { Principal } from '../auth/principal.js';
import { badUserInput } from '../errors/errors.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { listCost } from '../graphql/list-cost.js';
import { Organization } from '../organizations/organization.entity.js';
import { organizationNotFound, type OrganizationRead } from '../organizations/organization.reads.js';
import {
  accessibleEventsPage,
  deliveriesOf,
  type DeliveryRead,
  eventNotFound,
  findAccessibleEvent,
  MAX_EVENT_DELIVERIES,
  subtreeEventsPage,
  type EventRead,
} from './event.reads.js';
import { Event, WebhookDelivery } from './event.type.js';
import { EVENT_TYPES } from '../outbox/record-event.js';

const EventConnection = ConnectionType('Event', Event);

@ArgsType()
class EventsArgs extends PageArgs {
  @Field(() => [String], { nullable: true, description: `Only these types (${EVENT_TYPES.join(', ')}); all when absent` })
  types?: string[] | null;
}

@ArgsType()
class AccessibleEventsArgs extends EventsArgs {
  @Field(() => ID, { nullable: true, description: "Only this organization's subtree" })
  organizationId?: string | null;
}

/** Types must be known ones: a typo would silently match nothing. */
function checkedTypes(types: string[] | null | undefined): string[] | null {
  if (types == null) return null;
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) throw badUserInput([{ path: 'types', message: `must be among ${EVENT_TYPES.join(', ')}` }]);
  return types;
}

/** Events (spec section 11): by id, listed, and on an organization for its subtree. */
@Resolver(() => Event)
export class EventResolver {
  @Authorized()
  @Scoped('events:read')
  @Query(() => Event, { nullable: true, description: 'An event of an organization the caller may access; else null and NOT_FOUND' })
  async event(@Arg('id', () => ID) id: string, @CurrentPrincipal() principal: Principal, @Ctx() ctx: RequestContext): Promise<EventRead> {
    const event = await findAccessibleEvent(ctx.db, principal, id);
    if (!event) throw eventNotFound();
    return event;
  }

  @Authorized()
  @Scoped('events:read')
  @Query(() => EventConnection, { description: 'The events the caller may access, oldest first; organizationId narrows to a subtree' })
  async events(
    @Args(() => AccessibleEventsArgs) args: AccessibleEventsArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<EventRead>> {
    if (args.organizationId != null) return subtreeEvents(ctx, info, principal, args.organizationId, args);
    const { first, after } = pagePosition('event', args);
    const types = checkedTypes(args.types);
    ctx.deadline.assertOpen();
    return toConnection(
      'event',
      eventPageWithinMeter(ctx, info, await accessibleEventsPage(ctx.db, principal, types, first, after)),
      after,
    );
  }

  // Charged as the most it shows: MAX_EVENT_DELIVERIES (the default endpoint quota per tree).
  @FieldResolver(() => [WebhookDelivery], {
    description: `Each delivery of this event to an endpoint the caller may access (at most ${MAX_EVENT_DELIVERIES}, oldest first)`,
    complexity: listCost(MAX_EVENT_DELIVERIES),
  })
  deliveries(@Root() event: EventRead, @Ctx() ctx: RequestContext): Promise<DeliveryRead[]> {
    return ctx.load(deliveriesOf, event.id);
  }
}

/** `Organization.events`: its subtree's events. */
@Resolver(() => Organization)
export class OrganizationEventsResolver {
  @Scoped('events:read')
  @FieldResolver(() => EventConnection, { description: 'The events of this organization and every descendant, oldest first' })
  async events(
    @Root() organization: OrganizationRead,
    @Args(() => EventsArgs) args: EventsArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<EventRead>> {
    return subtreeEvents(ctx, info, principal, organization.id, args);
  }
}

/** A page of an organization's subtree's events; the organization out of reach is NOT_FOUND. */
async function subtreeEvents(
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  principal: Principal,
  organizationId: string,
  args: EventsArgs,
): Promise<Connection<EventRead>> {
  const { first, after } = pagePosition('event', args);
  const types = checkedTypes(args.types);
  ctx.deadline.assertOpen();
  const page = await subtreeEventsPage(ctx.db, principal, organizationId, types, first, after);
  if (!page) throw organizationNotFound();
  return toConnection('event', eventPageWithinMeter(ctx, info, page), after);
}

/**
 * A page of events as the request's cost meter allows it: each event's `data` at its stored
 * size (graphql/cost-meter.ts, JSON_BYTES_PER_POINT) when the page selects it. Events written
 * before they stayed small carry a policy with its whole ledger: a page of those stops early
 * rather than pass the response cap.
 */
function eventPageWithinMeter<P extends Page<EventRead>>(ctx: RequestContext, info: GraphQLResolveInfo, page: P): P {
  if (!nodeSelects(info, 'data')) return page;
  return pageWithinMeter(ctx.cost, page, (event) => jsonCostBeyondEstimate(event.dataBytes ?? 0));
}
