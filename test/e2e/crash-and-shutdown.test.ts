import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { startMain, stopMain, type Started } from '../support/service-process.js';

type Outcome = { status: number; body: any } | { error: string };

/** One request on its own connection (no keep-alive), so a refusal is a clean ECONNREFUSED. */
function send(url: string, method: string, path: string, token: string, body?: unknown): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      new URL(path, url),
      { method, agent: false, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
        res.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
      },
    );
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    req.end(payload);
  });
}

/** Inside the fixture policy's term (2026-01-01 to 2027-01-01). */
const CANCELLED_ON = '2026-06-15';

/**
 * Workers that create an organization (2 owners, 1 bank account), then a policy (12 charges),
 * then cancel it (7 credits and a `policy.cancelled` event), in a loop until `stop()` is called
 * or the server stops answering.
 */
function writeLoad(service: Started, workers: number) {
  /** `tag` is the request's unique legalName or petName, to find its row (or its absence) later. */
  const outcomes: Array<{ kind: 'organization' | 'policy' | 'cancellation'; tag: string; outcome: Outcome }> = [];
  let running = true;
  let sent = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const tag = `load-${++sent}`;
      const body = organizationBody({
        legalName: tag,
        owners: [
          { firstname: 'A', lastname: 'B', ownership: 50 },
          { firstname: 'C', lastname: 'D', ownership: 50 },
        ],
        bankAccounts: [{ routing: '110000000', account: '000123456789' }],
      });
      const organization = await send(service.url, 'POST', '/api/v1/organization', service.token!, body);
      outcomes.push({ kind: 'organization', tag, outcome: organization });
      if (!('status' in organization) || organization.status !== 200) break;
      const petTag = `${tag}-pet`;
      const policy = await send(
        service.url,
        'POST',
        '/api/v1/policy',
        service.token!,
        policyBody({ organizationId: organization.body.id, petName: petTag }),
      );
      outcomes.push({ kind: 'policy', tag: petTag, outcome: policy });
      if (!('status' in policy) || policy.status !== 200) break;
      // Cancelled mid-term, pro rata: seven credits (June's part and July to December) and an event.
      const cancellation = await send(service.url, 'POST', `/api/v1/policy/${policy.body.number}/cancellation`, service.token!, {
        effectiveDate: CANCELLED_ON,
        reason: 'other',
      });
      outcomes.push({ kind: 'cancellation', tag: `${tag}-cancel`, outcome: cancellation });
      if (!('status' in cancellation)) break;
    }
  });
  return {
    outcomes,
    done: () => Promise.all(loops),
    stop: () => {
      running = false;
    },
  };
}

const waitFor = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
};

/**
 * Each test starts the service twice as `npm start` does, each time on an embedded PostgreSQL in
 * a data directory of its own (initdb on the first start, crash recovery on the second) with the
 * service compiled by tsx at start: about 8 s on a quiet machine, three to four times that with a
 * core kept busy. Every wait inside is on an event (outcomes counted, the exit), so the limit is
 * only what a busy machine needs, not a timing assumption.
 */
const STARTS_TWICE = { timeout: 120_000 };

describe('crashes and shutdown', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('loses nothing acknowledged and writes nothing by halves when killed with SIGKILL mid-load', STARTS_TWICE, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-crash-'));
    dirs.push(dataDir);
    const first = await startMain({ DATA_DIR: dataDir });
    const load = writeLoad(first, 8);
    await waitFor(() => load.outcomes.length >= 60);
    first.child.kill('SIGKILL');
    await load.done();

    const acknowledged = load.outcomes.filter(({ outcome }) => 'status' in outcome && outcome.status === 200);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    expect(acknowledged.filter((a) => a.kind === 'cancellation').length).toBeGreaterThan(0);
    expect(load.outcomes.every(({ outcome }) => !('status' in outcome) || outcome.status === 200)).toBe(true);

    // Same data directory: the PostgreSQL the killed process left behind is stopped and restarted.
    const second = await startMain({ DATA_DIR: dataDir });
    try {
      for (const { kind, outcome } of acknowledged) {
        const { body } = outcome as { body: { id?: string; number?: number } };
        const path = kind === 'organization' ? `/api/v1/organization/${body.id}` : `/api/v1/policy/${body.number}`;
        const read = await request(second.url, 'GET', path, { token: second.token });
        expect(read.status, path).toBe(200);
        // An acknowledged cancellation is there after the restart.
        if (kind === 'cancellation')
          expect(read.body.cancellation, path).toMatchObject({ effectiveDate: CANCELLED_ON, reason: 'other', method: 'pro_rata' });
      }
      // Nothing half-written: every organization has both owners and its account, every policy
      // all 12 premiums, every cancellation its 7 credits and its event.
      expect((await request(second.url, 'GET', '/readyz')).status).toBe(200);
      const client = new pg.Client({ connectionString: await databaseUrlOf(dataDir) });
      await client.connect();
      try {
        const orphans = await client.query(`
          select 'organization' as kind, o.id::text from organization o
            where (select count(*) from owner w where w.organization_id = o.id) <> 2
               or (select count(*) from bank_account b where b.organization_id = o.id) <> 1
          union all
          select 'policy', p.id::text from policy p where (select count(*) from charge c where c.policy_id = p.id and c.type = 'premium') <> 12
          union all
          select 'cancellation', t.id::text from policy_transaction t join policy p on p.id = t.policy_id
            where t.type = 'cancellation'
              and ((select count(*) from charge c where c.transaction_id = t.id) <> 7
                or (select count(*) from event e where e.type = 'policy.cancelled' and (e.data->'object'->>'number')::bigint = p.number) <> 1)
          union all
          select 'credits without a cancellation', p.id::text from policy p
            where exists (select 1 from charge c where c.policy_id = p.id and c.type <> 'premium')
              and not exists (select 1 from policy_transaction t where t.policy_id = p.id and t.type = 'cancellation')`);
        const cancelled = await client.query(`select count(*)::int as n from policy_transaction where type = 'cancellation'`);
        expect(cancelled.rows[0].n).toBeGreaterThanOrEqual(acknowledged.filter((a) => a.kind === 'cancellation').length);
        expect(orphans.rows).toEqual([]);
        const created = await client.query('select count(*)::int as n from organization');
        expect(created.rows[0].n).toBeGreaterThanOrEqual(acknowledged.filter((a) => a.kind === 'organization').length);
      } finally {
        await client.end();
      }
    } finally {
      expect((await stopMain(second.child)).code).toBe(0);
    }
  });

  // Contract section 19: a payment is its row, the state it leaves (the policy's version +1) and its
  // event, written in one statement under the policy's lock. Killed mid-load, nothing acknowledged
  // is lost and nothing is written by halves.
  it('loses no acknowledged payment and writes none by halves when killed with SIGKILL mid-payments', STARTS_TWICE, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-crash-payments-'));
    dirs.push(dataDir);
    const first = await startMain({ DATA_DIR: dataDir });
    const organization = await send(first.url, 'POST', '/api/v1/organization', first.token!, organizationBody({ legalName: 'payments' }));
    expect('status' in organization && organization.status).toBe(200);
    const organizationId = (organization as { body: { id: string } }).body.id;
    // Four policies, two workers paying each: payments on one policy wait on its row lock.
    const numbers: number[] = [];
    for (let i = 0; i < 4; i++) {
      const policy = await send(first.url, 'POST', '/api/v1/policy', first.token!, policyBody({ organizationId, petName: `payer-${i}` }));
      expect('status' in policy && policy.status).toBe(200);
      numbers.push((policy as { body: { number: number } }).body.number);
    }
    const outcomes: Array<{ reference: string; number: number; outcome: Outcome }> = [];
    let running = true;
    let sent = 0;
    const loops = Array.from({ length: 8 }, async (_, worker) => {
      const number = numbers[worker % numbers.length];
      while (running) {
        const reference = `pay-${++sent}`;
        const outcome = await send(first.url, 'POST', `/api/v1/policy/${number}/payments`, first.token!, {
          amount: 100 + worker,
          reference,
        });
        outcomes.push({ reference, number, outcome });
        if (!('status' in outcome)) break;
      }
    });
    await waitFor(() => outcomes.length >= 80);
    first.child.kill('SIGKILL');
    running = false;
    await Promise.all(loops);

    const acknowledged = outcomes.filter(({ outcome }) => 'status' in outcome && outcome.status === 200);
    expect(acknowledged.length).toBeGreaterThanOrEqual(80);
    // Every answer before the kill was a 200; the rest could not connect, or lost their connection.
    expect(outcomes.every(({ outcome }) => !('status' in outcome) || outcome.status === 200)).toBe(true);

    const second = await startMain({ DATA_DIR: dataDir });
    try {
      expect((await request(second.url, 'GET', '/readyz')).status).toBe(200);
      const client = new pg.Client({ connectionString: await databaseUrlOf(dataDir) });
      await client.connect();
      try {
        // Every acknowledged payment is stored, on its policy.
        const stored = await client.query<{ reference: string; number: string }>(
          'select m.reference, p.number::text from policy_payment m join policy p on p.id = m.policy_id',
        );
        const storedOn = new Map(stored.rows.map((row) => [row.reference, Number(row.number)]));
        for (const { reference, number } of acknowledged) expect(storedOn.get(reference), reference).toBe(number);
        // Nothing by halves: each payment has one state row and one event, naming it; no state row
        // or event names a payment that is not there; each policy's versions run 1, 2, ... with no gap,
        // and its latest state's `paid` is the sum of its payments.
        const halves = await client.query(`
          select 'payment without one state row' as problem, m.reference from policy_payment m
            where (select count(*) from policy_state s where s.payment_id = m.id) <> 1
          union all
          select 'payment without one event', m.reference from policy_payment m
            where (select count(*) from event e where e.type = 'policy.payment_recorded' and e.data->'transaction'->>'id' = m.id::text) <> 1
          union all
          select 'event without its payment', e.id::text from event e
            where e.type = 'policy.payment_recorded'
              and not exists (select 1 from policy_payment m where m.id::text = e.data->'transaction'->>'id')
          union all
          select 'versions with a gap', p.number::text from policy p
            where (select max(s.version) from policy_state s where s.policy_id = p.id) <> (select count(*) from policy_state s where s.policy_id = p.id)
          union all
          select 'paid is not the sum of the payments', p.number::text from policy p
            where (select s.paid from policy_state s where s.policy_id = p.id order by s.version desc limit 1)
              <> (select coalesce(sum(m.amount), 0) from policy_payment m where m.policy_id = p.id)`);
        expect(halves.rows).toEqual([]);
        // Reads agree: each policy's version counts its issuance and every payment stored.
        for (const number of numbers) {
          const read = await request(second.url, 'GET', `/api/v1/policy/${number}`, { token: second.token });
          const payments = stored.rows.filter((row) => Number(row.number) === number).length;
          expect(read.body.version, String(number)).toBe(1 + payments);
        }
      } finally {
        await client.end();
      }
    } finally {
      expect((await stopMain(second.child)).code).toBe(0);
    }
  });

  it('finishes in-flight requests on SIGTERM, exits 0 within 10 s, and restarts on the same data', STARTS_TWICE, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-term-'));
    dirs.push(dataDir);
    const service = await startMain({ DATA_DIR: dataDir });
    const load = writeLoad(service, 8);
    await waitFor(() => load.outcomes.length >= 40);
    const stopping = stopMain(service.child);
    await load.done();
    const { code, ms } = await stopping;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);

    const answered = load.outcomes.filter(({ outcome }) => 'status' in outcome);
    expect(answered.length).toBeGreaterThanOrEqual(40);
    for (const { outcome } of answered) expect((outcome as { status: number }).status).toBe(200);
    // Requests after the stop could not connect (refused, or reset in the listen backlog when
    // it closed): they never reached the service.
    for (const { outcome } of load.outcomes) if ('error' in outcome) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(outcome.error);

    const again = await startMain({ DATA_DIR: dataDir });
    try {
      const last = answered.at(-1)!;
      const { body } = last.outcome as { body: { id?: string; number?: number } };
      const path = last.kind === 'organization' ? `/api/v1/organization/${body.id}` : `/api/v1/policy/${body.number}`;
      expect((await request(again.url, 'GET', path, { token: again.token })).status).toBe(200);
      // The service did exactly the work it answered: a row for every 200, none for a request
      // the client saw fail. So no request was cut off after the service had taken it.
      const client = new pg.Client({ connectionString: await databaseUrlOf(dataDir) });
      await client.connect();
      try {
        const rows = await client.query(
          `select legal_name as tag from organization where legal_name like 'load-%'
           union all select pet_name from policy where pet_name like 'load-%'
           union all select regexp_replace(p.pet_name, '-pet$', '-cancel') from policy p
             join policy_transaction t on t.policy_id = p.id and t.type = 'cancellation' where p.pet_name like 'load-%'`,
        );
        const stored = new Set(rows.rows.map((row: { tag: string }) => row.tag));
        for (const { tag, outcome } of load.outcomes) expect(stored.has(tag), tag).toBe('status' in outcome);
      } finally {
        await client.end();
      }
    } finally {
      expect((await stopMain(again.child)).code).toBe(0);
    }
  });
});

/** The embedded database's URL is not printed; read its port from postmaster.pid. */
async function databaseUrlOf(dataDir: string): Promise<string> {
  const lines = (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
  return `postgres://postgres:postgres@127.0.0.1:${lines[3]}/postgres`;
}
