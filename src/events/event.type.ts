import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';

/** One endpoint's delivery of an event (spec section 11): its state, readable on the event. */
@ObjectType('WebhookDelivery', { simpleResolvers: true })
export class WebhookDelivery {
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

/** Something that happened (spec section 11), as delivered to webhook endpoints. */
@ObjectType('Event', { simpleResolvers: true })
export class Event {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'organization.created, organization.updated, policy.created, policy.changed, policy.cancelled, policy.reinstated, policy.renewed or quote.created' })
  type!: string;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;

  @Field(() => ID)
  organizationId!: string;

  // Charged as what it holds: a policy's object has about 130 values (12 charges of 8).
  @Field(() => GraphQLJSONObject, { description: '{ object }: the record as its create or change answered it; a change (organization.updated) adds previousAttributes, the changed fields\' earlier values', complexity: 200 })
  data!: Record<string, unknown>;
}
