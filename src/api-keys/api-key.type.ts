import { Field, ID, ObjectType } from 'type-graphql';

/** An API key as reads show it (contract section 20): never the key itself. */
@ObjectType('ApiKey', { simpleResolvers: true })
export class ApiKey {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => ID, { description: "The organization it acts for: it reaches that organization's subtree" })
  organizationId!: string;

  @Field(() => [String], { description: 'What it may do' })
  scopes!: string[];

  @Field(() => String, { description: 'The first 16 characters of the key, to tell keys apart' })
  prefix!: string;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;

  @Field(() => String, { description: 'The sub of the token that created it' })
  createdBy!: string;

  @Field(() => String, { description: 'RFC 3339: refused from then on (a rotated key: the end of its grace)' })
  expiresAt!: string;

  @Field(() => String, {
    nullable: true,
    description: 'RFC 3339: when it was last used, written at most once a minute (so up to a minute behind); null if never used',
  })
  lastUsedAt!: string | null;
}

/** A key as created or rotated: the only time the key itself is shown. */
@ObjectType('CreatedApiKey', { simpleResolvers: true })
export class CreatedApiKey extends ApiKey {
  @Field(() => String, { description: 'opk_live_… or opk_test_…: send it as "Authorization: Bearer <key>"; shown only here' })
  key!: string;
}
