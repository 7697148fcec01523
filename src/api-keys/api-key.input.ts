import { Field, ID, InputType, Int } from 'type-graphql';
import { API_KEY_SCOPES } from '../auth/scopes.js';
import { EachAmong, IntegerBetween, RequiredText } from '../input/rules.js';

/** Contract section 20: a key lives 1 to 365 days, 90 unless asked. */
export const API_KEY_DEFAULT_DAYS = 90;
/** A rotation's grace: 0 to 7 days, a day unless asked. */
export const ROTATION_DEFAULT_GRACE_SECONDS = 86_400;
export const ROTATION_MAX_GRACE_SECONDS = 604_800;

/** POST /api/v1/api-keys and createApiKey. */
@InputType('CreateApiKeyInput')
export class CreateApiKeyInput {
  @Field(() => ID, {
    nullable: true,
    description: "The organization the key acts for (it reaches that organization's subtree); defaults to the token's org",
  })
  organizationId?: string | null;

  @Field(() => String, { description: 'What the key is for, 1-100 characters: shown in lists, never secret' })
  @RequiredText(100)
  name!: string;

  @Field(() => [String], { description: `What the key may do: a non-empty subset of ${API_KEY_SCOPES.join(', ')}` })
  @EachAmong(API_KEY_SCOPES)
  scopes!: string[];

  @Field(() => Int, { nullable: true, description: `Days until it expires, 1-365; ${API_KEY_DEFAULT_DAYS} when absent` })
  @IntegerBetween(1, 365)
  expiresInDays?: number | null;
}

/** POST /api/v1/api-keys/{id}/rotation and rotateApiKey. */
@InputType('RotateApiKeyInput')
export class RotateApiKeyInput {
  @Field(() => Int, {
    nullable: true,
    description: `Seconds the old key keeps working, 0-${ROTATION_MAX_GRACE_SECONDS} (never past its own expiry); ${ROTATION_DEFAULT_GRACE_SECONDS} when absent`,
  })
  @IntegerBetween(0, ROTATION_MAX_GRACE_SECONDS)
  graceSeconds?: number | null;
}
