import { Collection, Entity, ManyToOne, OneToMany, PrimaryKey, Property, type Opt, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ScopedType } from '../auth/scope-gate.js';
import { Node } from '../graphql/node.js';
import { Address, type StoredAddress } from './address.type.js';
import { BankAccount } from './bank-account.entity.js';
import { Owner } from './owner.entity.js';

/**
 * An organization. The table also holds `path` (ids from the root down to this row) and
 * `owner_subs` (the creators' `sub` along that path), filled by a database trigger from the
 * parent row; the access rule reads them, the entity never writes them.
 */
// Contract section 20: an organization's data needs organizations:read of a key; its reference in a policy's answer does not.
@ScopedType('organizations:read', { open: ['id', 'name', 'parentId'] })
@ObjectType('Organization', { simpleResolvers: true, implements: Node })
@Entity({ tableName: 'organization' })
export class Organization {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Organization, ref: true, nullable: true, fieldName: 'parent_id' })
  parent: Ref<Organization> | null = null;

  /** The `sub` of the user who created it: its owner for the access rule. */
  @Property({ type: 'text' })
  ownerSub!: string;

  @Field(() => String, { description: 'Defaults to legalName' })
  @Property({ type: 'text' })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Field(() => String, { nullable: true, description: 'Absolute http(s) URL of the logo' })
  @Property({ type: 'text', nullable: true })
  logo: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  type: string | null = null;

  @Field(() => String, { nullable: true, description: 'Card statement descriptor (at most 22 characters)' })
  @Property({ type: 'text', nullable: true })
  descriptor: string | null = null;

  @Field(() => String)
  @Property({ type: 'text' })
  legalName!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  legalType!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  taxId!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  phone: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  email: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  website: string | null = null;

  @Field(() => Address, { nullable: true })
  @Property({ type: 'json', nullable: true })
  address: StoredAddress | null = null;

  @OneToMany({ entity: () => BankAccount, mappedBy: 'organization', orderBy: { position: 'asc' } })
  bankAccounts = new Collection<BankAccount>(this);

  @OneToMany({ entity: () => Owner, mappedBy: 'organization', orderBy: { position: 'asc' } })
  owners = new Collection<Owner>(this);

  /** 1 when created, one more per change (contract section 15): REST's ETag, what If-Match and ifVersion compare. */
  @Field(() => Int, {
    description: '1 when created, one more per change; REST sends it as the ETag, If-Match and ifVersion compare against it',
  })
  @Property({ type: 'integer', default: 1 })
  version: Opt<number> = 1;

  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();
}
