import { Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';
import { Organization } from './organization.entity.js';

/** A bank account. The account number is stored encrypted and only its last four are shown. */
@ObjectType('BankAccount', { simpleResolvers: true })
@Entity({ tableName: 'bank_account' })
export class BankAccount {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Organization, ref: true, deleteRule: 'cascade' })
  organization!: Ref<Organization>;

  /** Order as sent by the client. */
  @Property({ type: 'smallint' })
  position!: number;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  nickname: string | null = null;

  @Field(() => String)
  @Property({ type: 'text' })
  routing!: string;

  @Property({ type: 'text' })
  accountCiphertext!: string;

  @Property({ type: 'text' })
  accountKeyId!: string;

  @Field(() => String, { description: 'Last four characters of the account number' })
  @Property({ type: 'text' })
  accountLast4!: string;
}
