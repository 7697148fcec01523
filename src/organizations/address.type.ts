import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, FieldResolver, ObjectType, Resolver, Root } from 'type-graphql';

/** The fields an address names; anything else a client sends is kept as additional fields. */
export const ADDRESS_FIELDS = ['line1', 'line2', 'division', 'city', 'postal', 'country'] as const;

/** An address as stored: the named fields plus whatever else the client sent (jsonb). */
export type StoredAddress = Partial<Record<(typeof ADDRESS_FIELDS)[number], string>> & Record<string, unknown>;

@ObjectType('Address', {
  simpleResolvers: true,
  description: 'A postal address. Unknown properties sent by clients are kept in additionalFields.',
})
export class Address {
  @Field(() => String, { nullable: true }) line1?: string;
  @Field(() => String, { nullable: true }) line2?: string;
  @Field(() => String, { nullable: true, description: 'State, province or region' }) division?: string;
  @Field(() => String, { nullable: true }) city?: string;
  @Field(() => String, { nullable: true }) postal?: string;
  @Field(() => String, { nullable: true }) country?: string;
}

@Resolver(() => Address)
export class AddressResolver {
  @FieldResolver(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Properties beyond the named ones, as sent; null when there are none',
  })
  additionalFields(@Root() address: StoredAddress): Record<string, unknown> | null {
    const extra = Object.fromEntries(Object.entries(address).filter(([key]) => !(ADDRESS_FIELDS as readonly string[]).includes(key)));
    return Object.keys(extra).length > 0 ? extra : null;
  }
}
