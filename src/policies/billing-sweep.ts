import type { Logger } from 'pino';
import { servicePrincipal } from '../auth/principal.js';
import type { PolicyRules } from '../config.js';
import type { Gateway } from '../database/database.js';
import { ServiceError } from '../errors/errors.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { Deadline } from '../limits/deadline.js';
import type { LedgerObserver } from '../observability/business-metrics.js';
import { addDays, todayUtc } from '../values/calendar-date.js';
import { clearPastDue, recordPastDue } from './billing-notice.js';
import { lapsePolicy } from './cancel-policy.js';
import { billingOf, lapseDateOf, type Due } from './ledger/billing.js';
import type { LedgerScope } from './ledger/ledger-scope.js';

/**
 * The billing sweep (contract section 19, "Lapse for non-payment"): at start and every
 * BILLING_SWEEP_SECONDS, once across instances, it walks every policy and
 * - records `policy.past_due` when a policy's `pastDue` has turned above 0 since the sweep last
 *   saw it, and notes when it is back to 0 (billing-notice.ts);
 * - lapses a policy (BILLING_LAPSE_DAYS above 0): the cancellation the service records for
 *   non-payment, through the ledger's one writer (cancel-policy.ts, `lapsePolicy`).
 *
 * Once across instances (docs/decisions.md, "The billing sweep"): each instance, at start and
 * then every BILLING_SWEEP_SECONDS, sends a job throttled to one per slot of BILLING_SWEEP_SECONDS
 * (pg-boss `sendThrottled`: a unique key on the queue and the slot, so of the instances that send
 * in one slot one job is made), on a `stately` queue (at most one sweep queued and one running),
 * and one worker of any instance runs it. The writes do not rely on that: a lapse is decided again
 * under the policy's lock (a second one is a 409, taken as done), and `policy.past_due` is guarded
 * by the notice's row.
 *
 * The walk goes through the policies by `seq` in batches; SQL keeps the policies that may be past
 * due or lapsed (their oldest unpaid due date, `unpaid_from`, stored with the state, far enough
 * back; or a notice saying past due), and the rules decide in TypeScript, from ledger/billing.ts
 * as every read does.
 */
const QUEUE = 'billing-sweep';
/** Policies walked per statement. */
const BATCH = 500;
/** The time one policy's write may take (its deadline; the statement timeout also holds). */
const WRITE_SECONDS = 30;
/** Failures in a row that end a sweep (the database is away): the job fails and pg-boss runs it again. */
const FAILURES_IN_A_ROW = 5;
/** setInterval's longest delay: a longer BILLING_SWEEP_SECONDS sends more often, and the slot keeps it to one job. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface BillingSweepOptions {
  /** The service's gateway: the walk and every write. */
  database: Gateway;
  jobs: JobQueue;
  rules: PolicyRules;
  logger: Logger;
  /** Told of each lapse once committed (the business metrics), as a request's writes are. */
  observe?: LedgerObserver;
}

/** What one sweep needs (a test runs one outside the queue). */
export type SweepOptions = Omit<BillingSweepOptions, 'jobs'>;

export interface BillingSweep {
  /** No further sweep starts here; one running stops after its policy (its job runs again, here or elsewhere). */
  stop(): Promise<void>;
}

/** What one sweep did. */
export interface SweepCounts {
  /** Policies the SQL kept and the rules were run on. */
  checked: number;
  pastDue: number;
  paidUp: number;
  lapsed: number;
  /** Lapses the locked ledger refused (a payment came first, or another sweep lapsed it): nothing to do. */
  notLapsed: number;
  failed: number;
}

/** A policy the walk kept, with its latest state. */
interface Candidate {
  id: string;
  number: number;
  organizationId: string;
  expirationDate: string;
  dues: Due[];
  paid: number;
  cancelled: boolean;
  /** The notice says past due. */
  noticed: boolean;
  latestEffectiveDate: string;
}

/**
 * One batch: the next BATCH policies after `seq` (the walk's keyset), the last `seq` walked, and
 * those of them whose latest state (`order by version desc limit 1`) has an oldest unpaid due date
 * on or before the date given, or whose notice says past due.
 */
const WALK = `with walked as (
    select p.id, p.seq, p.number, p.organization_id, p.expiration_date from policy p where p.seq > ?::bigint order by p.seq limit ?
  )
  select (select max(seq) from walked)::text as last,
    coalesce((select json_agg(json_build_object(
        'id', w.id, 'number', w.number, 'organizationId', w.organization_id, 'expirationDate', w.expiration_date,
        'dues', s.dues, 'paid', s.paid, 'cancelled', s.cancellation is not null, 'noticed', coalesce(n.past_due, false),
        'latestEffectiveDate', (select t.effective_date from policy_transaction t where t.policy_id = w.id order by t.seq desc limit 1)
      ) order by w.seq)
      from walked w
      cross join lateral (select s.dues, s.paid, s.unpaid_from, s.cancellation from policy_state s
        where s.policy_id = w.id order by s.version desc limit 1) s
      left join policy_billing_notice n on n.policy_id = w.id
      where s.unpaid_from <= ?::date or n.past_due), '[]') as candidates`;

/** Registers the sweep's worker on the job queue and sends the first job (at start), then one every BILLING_SWEEP_SECONDS. */
export async function startBillingSweep(options: BillingSweepOptions): Promise<BillingSweep> {
  const { jobs, rules, logger } = options;
  const { boss } = jobs;
  const seconds = rules.billingSweepSeconds;
  await jobs.createQueue(QUEUE, {
    policy: 'stately',
    // A sweep that failed (the database went away) runs again a minute later, up to twice; the
    // next slot's runs anyway.
    retryLimit: 2,
    retryDelay: 60,
    // A worker that died mid-sweep stops its heartbeat: its job runs again within a minute or so
    // (pg-boss's monitor pass). A live one may sweep for up to an hour.
    heartbeatSeconds: 30,
    expireInSeconds: 60 * 60,
  });
  let stopping = false;
  const workerId = await boss.work<null>(
    QUEUE,
    // Each instance wakes its own worker when its send made the job; polling is the fallback for
    // a job another instance made, or one run again.
    { pollingIntervalSeconds: Math.max(1, Math.min(30, seconds)) },
    async ([job]) => {
      const started = performance.now();
      try {
        const counts = await sweepPolicies(options, () => stopping || job.signal.aborted);
        const line = { ...counts, ms: Math.round(performance.now() - started) };
        if (counts.pastDue + counts.lapsed + counts.failed > 0) logger.info(line, 'billing sweep done');
        else logger.debug(line, 'billing sweep done');
      } catch (error) {
        if (stopping) logger.info('billing sweep interrupted by the stop; its job runs again');
        else logger.warn({ err: error }, 'billing sweep failed; its job runs again');
        throw error;
      }
    },
  );
  const send = () =>
    boss
      .sendThrottled(QUEUE, null, null, seconds)
      .then((id) => id !== null && boss.notifyWorker(workerId))
      .catch((error) => logger.warn({ err: error }, 'could not send the billing sweep job'));
  void send();
  const timer = setInterval(() => void send(), Math.min(seconds * 1000, MAX_TIMER_MS)).unref();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await boss.offWork(QUEUE, { wait: true });
    },
  };
}

/**
 * One sweep over every policy, as of today (UTC, fixed for the sweep). `stopped()` is asked
 * between policies: the service is stopping, or the job's claim was lost.
 */
export async function sweepPolicies(options: SweepOptions, stopped: () => boolean = () => false): Promise<SweepCounts> {
  const { database, rules, logger } = options;
  const today = todayUtc();
  const lapseDays = rules.billingLapseDays;
  // Past due needs an unpaid due date BILLING_GRACE_DAYS back, a lapse one BILLING_LAPSE_DAYS back.
  const unpaidBy = addDays(today, -(lapseDays > 0 ? Math.min(rules.billingGraceDays, lapseDays) : rules.billingGraceDays));
  const counts: SweepCounts = { checked: 0, pastDue: 0, paidUp: 0, lapsed: 0, notLapsed: 0, failed: 0 };
  let failuresInARow = 0;
  for (let after = '0'; ;) {
    if (stopped()) throw new Error('the billing sweep stopped before its end');
    const [{ last, candidates }] = await database.query<{ last: string | null; candidates: Candidate[] }>(WALK, [after, BATCH, unpaidBy]);
    if (last === null) return counts;
    after = last;
    for (const policy of candidates) {
      if (stopped()) throw new Error('the billing sweep stopped before its end');
      counts.checked++;
      try {
        await sweepPolicy(options, policy, today, counts);
        failuresInARow = 0;
      } catch (error) {
        counts.failed++;
        logger.warn({ err: error, policy: policy.number }, 'billing sweep: a policy failed; the next sweep tries it again');
        if (++failuresInARow >= FAILURES_IN_A_ROW) throw error;
      }
    }
  }
}

/** The notice, then the lapse, of one policy the walk kept. */
async function sweepPolicy(options: SweepOptions, policy: Candidate, today: string, counts: SweepCounts): Promise<void> {
  const { database, rules } = options;
  const basis = { dues: policy.dues, paid: Number(policy.paid) };
  const principal = servicePrincipal(policy.organizationId);
  const { pastDue } = billingOf(basis, today, rules.billingGraceDays);
  if (pastDue > 0 && !policy.noticed) {
    // Judged again under the policy's lock.
    if (await recordPastDue({ db: database, principal, rules }, policy.number)) counts.pastDue++;
  } else if (pastDue === 0 && policy.noticed) {
    await clearPastDue(database, policy.id);
    counts.paidUp++;
  }
  const lapse = lapseDateOf(
    basis,
    { expirationDate: policy.expirationDate, latestEffectiveDate: policy.latestEffectiveDate, cancelled: policy.cancelled },
    today,
    rules.billingLapseDays,
  );
  // Also a policy whose term has ended since its lapse date (decide-lapse.ts); once lapsed, or its
  // lapse written before, the locked decide refuses it and the walk keeps no such policy again
  // unless it is unpaid (a lapse reinstated with nothing paid: one statement a sweep).
  if (lapse === null) return;
  const scope: LedgerScope = {
    db: database,
    principal,
    origin: null,
    deadline: new Deadline(WRITE_SECONDS),
    rules,
    observe: options.observe,
  };
  try {
    await lapsePolicy(scope, policy.number);
    counts.lapsed++;
  } catch (error) {
    // Decided again under the lock: already lapsed (by another sweep), or paid meanwhile.
    if (!(error instanceof ServiceError && error.code === 'INVALID_STATE')) throw error;
    counts.notLapsed++;
  }
}
