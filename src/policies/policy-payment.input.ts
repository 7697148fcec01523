import { Field, InputType, Int } from 'type-graphql';
import { CalendarDate, Cents, NotInFuture, PrintableText } from '../input/rules.js';

/** Contract section 19: an amount is 1 to 100,000,000 cents. */
export const MAX_PAYMENT_CENTS = 100_000_000;
/** ... and a reference 1 to 100 printable characters. */
export const MAX_REFERENCE_CHARACTERS = 100;

/** What a payment's and a refund's bodies share (contract section 19); each names its date. Never an argument's type, so not in the schema: its fields are inherited. */
@InputType()
abstract class MoneyInput {
  @Field(() => Int, { description: 'Cents, from 1 to 100,000,000' })
  @Cents(MAX_PAYMENT_CENTS)
  amount!: number;

  @Field(() => String, {
    description: "The payment provider's id, 1-100 printable characters: unique among the policy's payments and refunds (409 CONFLICT)",
  })
  @PrintableText(MAX_REFERENCE_CHARACTERS)
  reference!: string;
}

/** POST /api/v1/policy/{number}/payments and recordPayment: money received, in any status. */
@InputType('RecordPaymentInput')
export class RecordPaymentInput extends MoneyInput {
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, the day it was received: not in the future; today (UTC) when absent' })
  @CalendarDate({ required: false })
  @NotInFuture()
  receivedOn?: string | null;
}

/** POST /api/v1/policy/{number}/refunds and recordRefund: money paid back, at most the credit balance (409 INVALID_STATE). */
@InputType('RecordRefundInput')
export class RecordRefundInput extends MoneyInput {
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, the day it was paid back: not in the future; today (UTC) when absent' })
  @CalendarDate({ required: false })
  @NotInFuture()
  paidOn?: string | null;
}
