import { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { request } from '../support/http.js';
import { day, policyLifecycle } from '../support/policy-lifecycle.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/** The migration before the stored state (issue 38): down to it drops policy_state, up again backfills it. */
const BEFORE_STATE = 'Migration20261201300000_reads_internal_id_per_entry_point';

/**
 * Issue 38, the policy's state stored when it is written (policy_state): `version` and its ETag,
 * the fields and cancellation reads show from the stored rows, and the migration's backfill,
 * which must rebuild exactly the rows the writer wrote, so that a database from before the
 * change reads as if every transaction had been posted by this code.
 */
describe('the stored policy state', () => {
  const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '0' });
  let token: string;
  const { policy, change, cancel, reinstate } = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 9700,
    coverageSlug: 'accident-illness-basic',
  });
  const read = (number: number) => request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
  /** Every history below: its number and the version it must read at. */
  const histories: Array<{ name: string; number: number; version: number }> = [];

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
    const ok = async (answer: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await answer;
      expect(status, JSON.stringify(body)).toBe(200);
      return body as { version: number; number: number };
    };
    const plain = await policy(-40);
    histories.push({ name: 'issued only', ...plain, version: 1 });

    const changed = await policy(-40);
    await ok(change(changed.number, { effectiveDate: day(-10), ownerLastname: 'Earlier' }));
    await ok(change(changed.number, { effectiveDate: day(0), petName: 'Today' }));
    histories.push({ name: 'changed before and on today', ...changed, version: 3 });

    // Two changes after today, stacked: today's fields are in neither of their rows.
    const future = await policy(-40);
    await ok(change(future.number, { effectiveDate: day(20), petName: 'Later' }));
    await ok(change(future.number, { effectiveDate: day(40), petName: 'Latest', ownerFirstname: 'Future' }));
    histories.push({ name: 'two changes after today', ...future, version: 3 });

    // A plan change on a billing date already passed: credits and premiums, a new coverage in effect.
    const replanned = await policy(-40);
    await ok(
      change(replanned.number, { effectiveDate: addMonthsClamped(replanned.effectiveDate, 1), coverageSlug: 'accident-illness-plus' }),
    );
    histories.push({ name: 'plan changed', ...replanned, version: 2 });

    const cancelled = await policy(-40);
    await ok(cancel(cancelled.number, { effectiveDate: day(-5), reason: 'underwriting' }));
    histories.push({ name: 'cancelled in the past', ...cancelled, version: 2 });

    const scheduled = await policy(-40);
    await ok(cancel(scheduled.number, { effectiveDate: day(30), reason: 'insured_request' }));
    histories.push({ name: 'cancellation scheduled', ...scheduled, version: 2 });

    const reinstated = await policy(-40);
    await ok(cancel(reinstated.number, { effectiveDate: day(10), reason: 'other' }));
    await ok(reinstate(reinstated.number));
    histories.push({ name: 'cancelled then reinstated', ...reinstated, version: 3 });

    const pending = await policy(10);
    await ok(change(pending.number, { effectiveDate: day(15), ownerFirstname: 'Pending' }));
    histories.push({ name: 'pending, changed ahead', ...pending, version: 2 });

    // A renewal writes the successor's first transaction; the predecessor gains none.
    const expiring = await policy(-350);
    const successor = await ok(
      request(service.url, 'POST', `/api/v1/policy/${expiring.number}/renewal`, { token, body: { number: 9799 } }),
    );
    histories.push({ name: 'renewed', ...expiring, version: 1 });
    histories.push({ name: 'a successor', number: successor.number, version: 1 });
  });

  it('carries the version on every read and answer, as the ETag on REST, and in the events', async () => {
    for (const { name, number, version } of histories) {
      const answer = await read(number);
      expect(answer.status, name).toBe(200);
      expect(answer.body.version, name).toBe(version);
      expect(answer.headers.get('etag'), name).toBe(`"${version}"`);
    }
    // A step's answer carries the version it wrote, and so does its event's object.
    const { number } = await policy(-40);
    const changed = await change(number, { effectiveDate: day(0), petName: 'Versioned' });
    expect([changed.body.version, changed.headers.get('etag')]).toEqual([2, '"2"']);
    const [event] = await service.sql<{ version: number }>(
      `select (data -> 'object' ->> 'version')::int as version from event
       where type = 'policy.changed' and (data -> 'object' ->> 'number')::bigint = $1`,
      [number],
    );
    expect(event.version).toBe(2);
  });

  it('answers the fields in effect today and the cancellation in force from the stored rows', async () => {
    const body = async (name: string) => (await read(histories.find((history) => history.name === name)!.number)).body;
    expect((await body('changed before and on today')).petName).toBe('Today');
    expect((await body('changed before and on today')).ownerLastname).toBe('Earlier');
    const future = await body('two changes after today');
    expect([future.petName, future.ownerFirstname]).not.toContain('Later');
    expect(future.petName).not.toBe('Latest');
    expect((await body('plan changed')).coverageSlug).toBe('accident-illness-plus');
    expect((await body('cancelled in the past')).status).toBe('cancelled');
    const scheduled = await body('cancellation scheduled');
    expect([scheduled.status, scheduled.cancellation?.effectiveDate]).toEqual(['active', day(30)]);
    expect((await body('cancelled then reinstated')).cancellation).toBeNull();
    expect((await body('pending, changed ahead')).ownerFirstname).not.toBe('Pending');
  });

  it('rebuilds in the migration exactly the rows the writer wrote: every read is the same after it', async () => {
    const rows = () =>
      service.sql(
        `select p.number::int, s.version, s.transaction_id, to_char(s.valid_from, 'YYYY-MM-DD') as valid_from, s.fields, s.cancellation,
           to_char(s.cancelled_from, 'YYYY-MM-DD') as cancelled_from
         from policy_state s join policy p on p.id = s.policy_id order by p.number, s.version`,
      );
    const reads = async () => Promise.all(histories.map(async ({ number }) => ({ number, ...(await read(number)).body })));
    const [writtenRows, writtenReads] = [await rows(), await reads()];
    expect(writtenRows.length).toBeGreaterThanOrEqual(histories.reduce((sum, { version }) => sum + version, 0));

    const orm = await MikroORM.init({
      ...ormSettings(service.databaseUrl, createLogger('silent')),
      entities: [],
      discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
    });
    try {
      await orm.getMigrator().down({ to: BEFORE_STATE });
      expect(await service.sql(`select to_regclass('policy_state') as state`)).toEqual([{ state: null }]);
      await orm.getMigrator().up();
    } finally {
      await orm.close();
    }
    expect(await rows()).toEqual(writtenRows);
    expect(await reads()).toEqual(writtenReads);
  });

  it('is append-only, like the ledger it projects', async () => {
    await expect(service.sql('update policy_state set version = version + 100')).rejects.toThrow(
      /ledger: its rows are never updated or deleted/,
    );
    await expect(service.sql('delete from policy_state')).rejects.toThrow(/ledger: its rows are never updated or deleted/);
  });
});
