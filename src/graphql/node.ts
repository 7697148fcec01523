import { Field, ID, InterfaceType } from 'type-graphql';

/**
 * Relay's `Node` (spec section 10): anything with an id that `node(id:)` can fetch again.
 * Ids are UUIDs, unique across organizations, policies and quotes; a read row tells its type
 * by its shape (only a quote row has `totalPremium`; of the others only a policy row has
 * `organizationId`).
 */
@InterfaceType('Node', {
  description: 'An object with a globally unique id',
  resolveType: (value: object) => ('totalPremium' in value ? 'Quote' : 'organizationId' in value ? 'Policy' : 'Organization'),
})
export abstract class Node {
  @Field(() => ID)
  id!: string;
}
