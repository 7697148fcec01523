import { Field, ObjectType } from 'type-graphql';

@ObjectType('Viewer', { simpleResolvers: true, description: 'The caller, as its token describes it' })
export class Viewer {
  @Field(() => String, { description: 'The token subject' })
  sub!: string;

  /** The token's org claim; served through the `organization` field. */
  orgId!: string | null;
}
