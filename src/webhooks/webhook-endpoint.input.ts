import { Field, ID, InputType, Int } from 'type-graphql';
import {
  EachAmong,
  IntegerBetween,
  RecentDateTime,
  NotNullIfGiven,
  OptionalText,
  RequiredHttpUrl,
  RequiredHttpUrlIfGiven,
} from '../input/rules.js';
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

/** How far back a recovery reaches (contract section 22): events are kept 30 days. */
export const RECOVERY_MAX_DAYS = 30;

/** POST /api/v1/webhook-endpoints/{id}/recovery and recoverWebhookEndpoint (contract section 22). */
@InputType('RecoverWebhookEndpointInput')
export class RecoverWebhookEndpointInput {
  @Field(() => String, {
    description: `RFC 3339, at most ${RECOVERY_MAX_DAYS} days ago: every event since then the endpoint should have received and did not is delivered again`,
  })
  @RecentDateTime(RECOVERY_MAX_DAYS)
  since!: string;
}

/** The most deliveries a second an endpoint may ask for (contract section 22). */
export const MAX_RATE_LIMIT_PER_SECOND = 1000;

/**
 * A change to an endpoint, as a merge patch (contract section 22): an absent field is kept, null
 * removes an optional one (`events: null`: every type again; `description`, `rateLimitPerSecond`).
 * `url` and `enabled` cannot be null. The organization never changes: delete and register again.
 */
@InputType('UpdateWebhookEndpointInput')
export class UpdateWebhookEndpointInput {
  @Field(() => String, {
    nullable: true,
    description: 'Where events are POSTed, under the create’s rules (in production https and not a private address); cannot be null',
  })
  @RequiredHttpUrlIfGiven()
  url?: string | null;

  @Field(() => [String], {
    nullable: true,
    description: `Event types to receive (${EVENT_TYPES.join(', ')}); null: every type, as when created without`,
  })
  @EachAmong(EVENT_TYPES)
  events?: string[] | null;

  @Field(() => String, { nullable: true, description: 'null removes it' }) @OptionalText(1000) description?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'false: disabled ("disabled by request"), it gets no deliveries and its pending ones fail; true: active again, its back-off cleared. Cannot be null',
  })
  @NotNullIfGiven('cannot be null: send true or false, or leave it out')
  enabled?: boolean | null;

  @Field(() => Int, {
    nullable: true,
    description: `At most this many deliveries a second, 1 to ${MAX_RATE_LIMIT_PER_SECOND}: the receiver never gets more within any second; null: no limit of its own`,
  })
  @IntegerBetween(1, MAX_RATE_LIMIT_PER_SECOND)
  rateLimitPerSecond?: number | null;
}
