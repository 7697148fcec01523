import { Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { Address, type StoredAddress } from './address.type.js';
import { Organization } from './organization.entity.js';

/** A beneficial owner. The tax id is stored encrypted and only its last four are shown. */
@ObjectType('Owner', { simpleResolvers: true })
@Entity({ tableName: 'owner' })
export class Owner {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Organization, ref: true, deleteRule: 'cascade' })
  organization!: Ref<Organization>;

  /** Order as sent by the client. */
  @Property({ type: 'smallint' })
  position!: number;

  @Field(() => String)
  @Property({ type: 'text' })
  firstname!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  lastname!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  @Property({ type: 'date', nullable: true })
  birthdate: string | null = null;

  @Property({ type: 'text', nullable: true })
  taxIdCiphertext: string | null = null;

  @Property({ type: 'text', nullable: true })
  taxIdKeyId: string | null = null;

  @Field(() => String, { nullable: true, description: 'Last four characters of the tax id' })
  @Property({ type: 'text', nullable: true })
  taxIdLast4: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  email: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  phone: string | null = null;

  @Field(() => Float, { nullable: true, description: 'Percentage owned, 0 < ownership <= 100' })
  @Property({ type: 'double', nullable: true })
  ownership: number | null = null;

  @Field(() => Address, { nullable: true })
  @Property({ type: 'json', nullable: true })
  address: StoredAddress | null = null;
}
