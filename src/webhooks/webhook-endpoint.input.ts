import { Field, ID, InputType, Int } from 'type-graphql';
import { EachAmong, IntegerBetween, OptionalText, RequiredHttpUrl } from '../input/rules.js';
import { EVENT_TYPES } from '../outbox/record-event.js';

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field(() => String, {
    description: 'Where events are POSTed: an absolute URL; in production https and not a private or loopback address',
  })
  @RequiredHttpUrl()
  url!: string;

  @Field(() => ID, { nullable: true, description: "Whose subtree's events; defaults to the token's org" })
  organizationId?: string | null;

  @Field(() => [String], { nullable: true, description: `Event types to receive (${EVENT_TYPES.join(', ')}); all when absent` })
  @EachAmong(EVENT_TYPES)
  events?: string[] | null;

  @Field(() => String, { nullable: true }) @OptionalText(1000) description?: string | null;
}

/** POST /api/v1/webhook-endpoints/{id}/secret-rotation and rotateWebhookEndpointSecret (contract section 22). */
@InputType('RotateWebhookSecretInput')
export class RotateWebhookSecretInput {
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds the old secret keeps signing beside the new one, 0-604,800; 86,400 when absent',
  })
  @IntegerBetween(0, 604_800)
  graceSeconds?: number | null;
}
