import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { EVENT_TYPES } from '../outbox/record-event.js';

/** One endpoint's delivery of an event (spec section 11): its state, readable on the event. */
@ObjectType('WebhookDelivery', { simpleResolvers: true })
export class WebhookDelivery {
  @Field(() => ID, {
    description: 'The delivery: its attempts name it (`deliveryId`); an event has one per endpoint, and one more per redelivery',
  })
  id!: string;

  @Field(() => ID)
  eventId!: string;

  @Field(() => ID)
  endpointId!: string;

  @Field(() => String, { description: 'pending, delivered or failed' })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => Int, { nullable: true, description: "The last attempt's HTTP status; null when it got none" })
  lastStatus!: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed, when it did' })
  lastError!: string | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339' })
  lastAttemptAt!: string | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339; null once delivered or failed' })
  nextAttemptAt!: string | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339' })
  deliveredAt!: string | null;
}

/** Who made an event: the caller whose request made it (contract section 18). */
@ObjectType('EventActor', { simpleResolvers: true })
export class EventActor {
  @Field(() => String, { description: "The caller's token's `sub`, or `apikey:<id>` for an API key" })
  sub!: string;

  @Field(() => ID, { nullable: true, description: 'The API key that made the request; null for a token or the service' })
  apiKeyId!: string | null;
}

/** Something that happened (spec section 11), as delivered to webhook endpoints. */
@ObjectType('Event', { simpleResolvers: true })
export class Event {
  @Field(() => ID)
  id!: string;

  // A String: a GraphQL enum value cannot hold the dot of `policy.created`.
  @Field(() => String, { description: `One of ${EVENT_TYPES.join(', ')}` })
  type!: string;

  @Field(() => String, { description: 'The version of this shape (its fields and data.object): v1' })
  apiVersion!: string;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;

  @Field(() => ID)
  organizationId!: string;

  @Field(() => EventActor, {
    nullable: true,
    description:
      'The caller whose request made the event; null for events older than the actor was recorded and not known then (organization.updated)',
  })
  actor!: EventActor | null;

  // Charged as what it holds: a policy's object has about 30 values, its transaction's charges 10 each (12 for an issuance).
  @Field(() => GraphQLJSONObject, {
    description:
      "{ object }: the record as its create or change answered it; a policy's object has no charges, and its event adds transaction: { id, type, effectiveDate, changes, charges }, the transaction it records with the charges that transaction wrote; a change (organization.updated) adds previousAttributes, the changed fields' earlier values",
    complexity: 200,
  })
  data!: Record<string, unknown>;
}
