import { Field, InputType, Int } from 'type-graphql';
import { CalendarDate, Cents, NotInFuture, PrintableText } from '../input/rules.js';

/** Contract section 19: an amount is 1 to 100,000,000 cents. */
export const MAX_PAYMENT_CENTS = 100_000_000;
/** ... and a reference 1 to 100 printable characters. */
export const MAX_REFERENCE_CHARACTERS = 100;

/** POST /api/v1/policy/{number}/payments and recordPayment (contract section 19). */
@InputType('RecordPaymentInput')
export class RecordPaymentInput {
  @Field(() => Int, { description: 'Cents received, from 1 to 100,000,000' })
  @Cents(MAX_PAYMENT_CENTS)
  amount!: number;

  @Field(() => String, {
    description: "The payment provider's id, 1-100 printable characters: unique among the policy's payments and refunds (409 CONFLICT)",
  })
  @PrintableText(MAX_REFERENCE_CHARACTERS)
  reference!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future; today (UTC) when absent' })
  @CalendarDate({ required: false })
  @NotInFuture()
  receivedOn?: string | null;
}

/** POST /api/v1/policy/{number}/refunds and recordRefund (contract section 19). */
@InputType('RecordRefundInput')
export class RecordRefundInput {
  @Field(() => Int, { description: 'Cents paid back, from 1 to 100,000,000: at most the credit balance (409 INVALID_STATE)' })
  @Cents(MAX_PAYMENT_CENTS)
  amount!: number;

  @Field(() => String, {
    description: "The payment provider's id, 1-100 printable characters: unique among the policy's payments and refunds (409 CONFLICT)",
  })
  @PrintableText(MAX_REFERENCE_CHARACTERS)
  reference!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future; today (UTC) when absent' })
  @CalendarDate({ required: false })
  @NotInFuture()
  paidOn?: string | null;
}
