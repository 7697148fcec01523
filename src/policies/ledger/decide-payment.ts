import { invalidState } from '../../errors/errors.js';
import type { EventType } from '../../outbox/record-event.js';
import { billingOf, duesOf } from './billing.js';
import type { DecideContext } from './decision.js';
import type { PaymentKind } from './kinds.js';
import type { PolicyState } from './state.js';

/** A payment's or a refund's body (contract section 19), its date defaulted to today. */
export interface PaymentCommand {
  kind: PaymentKind;
  amount: number;
  reference: string;
  /** `receivedOn` or `paidOn`; null: today. */
  date: string | null;
}

/** What a payment or a refund writes: the row, and its event. */
export interface PaymentDecision {
  payment: { kind: PaymentKind; amount: number; reference: string; date: string };
  event: EventType;
}

/** The credit balance on `today`: what may be refunded (contract section 19: `-balance` when negative). */
export function creditOn(state: PolicyState, today: string, graceDays: number): number {
  return Math.max(0, -billingOf({ dues: duesOf(state.charges), paid: state.paid }, today, graceDays).balance);
}

/**
 * A payment is accepted in every status: money received is recorded. A refund may not exceed the
 * credit balance when it is recorded (409 INVALID_STATE); decided under the policy's lock, so
 * racing refunds cannot overdraw it together. A reference already used on the policy is the
 * database's unique key (409 CONFLICT: post-payment.ts).
 */
export function decidePayment(state: PolicyState, command: PaymentCommand, { today, rules }: DecideContext): PaymentDecision {
  const { kind, amount, reference } = command;
  if (kind === 'refund') {
    const credit = creditOn(state, today, rules.billingGraceDays);
    if (amount > credit) {
      throw invalidState(
        credit === 0
          ? `Policy ${state.policy.number} has no credit balance to refund.`
          : `A refund of ${amount} exceeds policy ${state.policy.number}'s credit balance of ${credit}.`,
      );
    }
  }
  return {
    payment: { kind, amount, reference, date: command.date ?? today },
    event: kind === 'payment' ? 'policy.payment_recorded' : 'policy.refund_recorded',
  };
}
