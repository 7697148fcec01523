import { Field, ID, Int, ObjectType } from 'type-graphql';

/** Where an organization's subtree's events are POSTed (spec section 11). */
@ObjectType('WebhookEndpoint', { simpleResolvers: true })
export class WebhookEndpoint {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  url!: string;

  @Field(() => ID, { description: 'It receives the events of this organization and every descendant' })
  organizationId!: string;

  @Field(() => [String], { description: 'The event types it receives' })
  events!: string[];

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;

  @Field(() => String, {
    description:
      'active, or disabled: it receives nothing (no attempt succeeded for the whole retry window, its receiver answered 410 Gone, or it was disabled by request) until it is enabled again',
  })
  status!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Why it was disabled: "disabled by request", "410 Gone", or the retry window with its last error; null while active',
  })
  disabledReason!: string | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339; null while active' })
  disabledAt!: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'At most this many deliveries a second (1 to 1,000), as set by a change: the receiver never gets more within any second; null: no limit of its own',
  })
  rateLimitPerSecond!: number | null;
}

/** The endpoint as created: the only time its signing secret is shown. */
@ObjectType('CreatedWebhookEndpoint', { simpleResolvers: true })
export class CreatedWebhookEndpoint extends WebhookEndpoint {
  @Field(() => String, { description: 'whsec_… : verifies the webhook-signature header; shown only here' })
  secret!: string;
}

/** A rotated endpoint's new secret: the only time it is shown (contract section 22). */
@ObjectType('WebhookSecret', { simpleResolvers: true })
export class WebhookSecret {
  @Field(() => String, { description: 'whsec_… : the new secret; until the grace ends deliveries carry a signature with each' })
  secret!: string;
}

/** A test event sent to one endpoint (contract section 22): follow it with `event(id)` or the endpoint's attempts. */
@ObjectType('SentTestWebhook', { simpleResolvers: true })
export class SentTestWebhook {
  @Field(() => ID, { description: 'The `webhook.test` event: readable by id, kept out of event lists' })
  eventId!: string;

  @Field(() => ID, { description: 'Its delivery to the endpoint, made at once even while the endpoint is backed off' })
  deliveryId!: string;
}

/** What a recovery queued (contract section 22). */
@ObjectType('WebhookRecovery', { simpleResolvers: true })
export class WebhookRecovery {
  @Field(() => Int, { description: 'Events queued again to the endpoint: each one it should have received since then and did not, once' })
  queued!: number;
}
