import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The series an insurance operator watches (contract section 13; issue 39, item 4): policies
 * issued, cancelled and lapsed, premium written and credits given, payments and refunds recorded,
 * and the policies past due. Every money series is in cents.
 *
 * Each is told of a ledger write once it has committed (`observeLedger`, called by the ledger's
 * writers through the scope they write with: policies/ledger/ledger-scope.ts), so a rolled-back
 * write, or a replay of a kept answer, counts nothing. Bounded labels: `plan` is a slug of the
 * coverage catalog (a body's plan is checked against it), `reason` one of the closed set of
 * cancellation reasons, `type` issuance or renewal.
 */

/** What a committed transaction wrote (policies/ledger/ledger-entry.ts makes it). */
export interface TransactionEntry {
  kind: 'issuance' | 'renewal' | 'change' | 'cancellation' | 'reinstatement';
  /** The plan after the transaction: its premiums are at this plan's price. */
  plan: string;
  /** The plan before it: its credits give back what that plan charged (a change of plan moves it). */
  planBefore: string;
  /** The sum of the `premium` charges it wrote. */
  premium: number;
  /** Minus the sum of the `credit` charges it wrote (0 or more). */
  credits: number;
  /** A cancellation's reason, and whether the service recorded it for non-payment (contract section 19, "Lapse"). */
  cancellation?: { reason: string; lapse: boolean };
}

/** A committed payment or refund. */
export interface PaymentEntry {
  kind: 'payment' | 'refund';
  /** The policy's plan when it was recorded. */
  plan: string;
  amount: number;
}

export type LedgerEntry = TransactionEntry | PaymentEntry;

/** Told of each committed ledger write. */
export type LedgerObserver = (entry: LedgerEntry) => void;

export class BusinessMetrics {
  private readonly issued: Counter<'plan' | 'type'>;
  private readonly cancelled: Counter<'plan' | 'reason'>;
  private readonly lapsed: Counter<'plan'>;
  private readonly premium: Counter<'plan'>;
  private readonly credits: Counter<'plan'>;
  private readonly payments: Counter<'plan'>;
  private readonly refunds: Counter<'plan'>;
  private pastDue: (() => Promise<number>) | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    this.issued = new Counter({
      name: 'policies_issued_total',
      help: 'Policies issued, by plan and type (issuance: a new policy, from a body or a quote; renewal: a successor).',
      labelNames: ['plan', 'type'],
      registers,
    });
    this.cancelled = new Counter({
      name: 'policies_cancelled_total',
      help: 'Cancellations recorded (also those dated in the future), by plan and reason; lapses included (reason non_payment).',
      labelNames: ['plan', 'reason'],
      registers,
    });
    this.lapsed = new Counter({
      name: 'policies_lapsed_total',
      help: 'Cancellations the billing sweep recorded for non-payment (BILLING_LAPSE_DAYS), by plan.',
      labelNames: ['plan'],
      registers,
    });
    this.premium = new Counter({
      name: 'premium_written_cents_total',
      help: 'Cents of premium charges written (issuances, renewals, a change of plan at the new plan), by plan.',
      labelNames: ['plan'],
      registers,
    });
    this.credits = new Counter({
      name: 'credits_given_cents_total',
      help: "Cents of credit charges written (cancellations, a change of plan's credits for the old plan), by the plan they credit; a reinstatement's reversals are not subtracted.",
      labelNames: ['plan'],
      registers,
    });
    this.payments = new Counter({
      name: 'payments_recorded_cents_total',
      help: 'Cents of payments recorded, by the policy plan.',
      labelNames: ['plan'],
      registers,
    });
    this.refunds = new Counter({
      name: 'refunds_recorded_cents_total',
      help: 'Cents of refunds recorded, by the policy plan.',
      labelNames: ['plan'],
      registers,
    });
    const pastDue = () => this.pastDue?.();
    new Gauge({
      name: 'policies_past_due',
      help: 'Policies past due (billing.pastDue above 0) as the last billing sweep saw them, across all instances (the same number on each).',
      registers,
      // Read from the database, the same on every worker: the instance reports it once (a sum
      // over node:cluster workers would multiply it).
      aggregator: 'max',
      async collect() {
        // Without the database, the scrape still answers (its other series say why), with the last count.
        const count = await pastDue()?.catch(() => undefined);
        if (count !== undefined) this.set(count);
      },
    });
  }

  /** A ledger write that committed. */
  observe(entry: LedgerEntry): void {
    switch (entry.kind) {
      case 'payment':
        this.payments.inc({ plan: entry.plan }, entry.amount);
        return;
      case 'refund':
        this.refunds.inc({ plan: entry.plan }, entry.amount);
        return;
      case 'issuance':
      case 'renewal':
        this.issued.inc({ plan: entry.plan, type: entry.kind });
        break;
      case 'cancellation':
        if (entry.cancellation) {
          this.cancelled.inc({ plan: entry.planBefore, reason: entry.cancellation.reason });
          if (entry.cancellation.lapse) this.lapsed.inc({ plan: entry.planBefore });
        }
        break;
      case 'change':
      case 'reinstatement':
        break;
    }
    if (entry.premium > 0) this.premium.inc({ plan: entry.plan }, entry.premium);
    if (entry.credits > 0) this.credits.inc({ plan: entry.planBefore }, entry.credits);
  }

  /** How the count of past-due policies is read at each scrape. */
  watchPastDue(read: () => Promise<number>): void {
    this.pastDue = read;
  }
}
