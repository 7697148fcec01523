import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type Started } from '../support/service-process.js';
import { freePort } from '../../src/database/embedded-postgres.js';

const GUIDE = 'docs/api-guide.md';

/**
 * The fences the guide may use. `sh` blocks are run; the others are answers shown or code for
 * other tools (a `console` block is a command the plain `npm start` cannot serve, and says why).
 * Any other fence fails the test, so that a shell block cannot escape the run by being fenced
 * `bash` or `shell`.
 */
const NOT_RUN = ['json', 'text', 'graphql', 'ts', 'console'];

interface Block {
  /** The `## ` heading the block sits under. */
  section: string;
  script: string;
}

/** Every `sh` block of the guide, in order, each with its section. */
function guideBlocks(): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let open: { language: string; indent: string; lines: string[] } | undefined;
  for (const line of readFileSync(GUIDE, 'utf8').split('\n')) {
    const fence = /^( *)```(\S*)\s*$/.exec(line);
    if (open) {
      if (fence && fence[1] === open.indent && fence[2] === '') {
        if (open.language === 'sh') blocks.push({ section, script: open.lines.join('\n') });
        open = undefined;
      } else open.lines.push(line.slice(open.indent.length));
    } else if (fence) {
      expect(['sh', ...NOT_RUN], `a block fenced "${fence[2]}" under "${section}"`).toContain(fence[2]);
      open = { language: fence[2], indent: fence[1], lines: [] };
    } else if (line.startsWith('## ')) section = line.slice(3);
  }
  expect(open, 'every fence is closed').toBeUndefined();
  return blocks;
}

/**
 * Runs `script` with bash, its stderr a named pipe, as a terminal's would be a device: `tee
 * /dev/stderr` opens that path again, which cannot open a socket (Node's pipes) and would truncate
 * a file (each create's answer would overwrite the last).
 */
async function bash(
  script: string,
  env: Record<string, string>,
  dir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fifo = join(dir, 'calls.stderr');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  // Each end's open waits for the other's: both are opened at once, in libuv's pool.
  const [reader, writer] = await Promise.all([open(fifo, 'r'), open(fifo, 'w')]);
  let stderr = '';
  const drained = new Promise<void>((resolve) =>
    reader
      .createReadStream({ encoding: 'utf8' })
      .on('data', (chunk) => (stderr += chunk))
      .once('end', resolve),
  );
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', writer.fd],
  });
  let stdout = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  await writer.close();
  const [code] = (await once(child, 'close')) as [number | null];
  await drained;
  return { code, stdout, stderr };
}

/** Splits an output at the markers put between the blocks: the lines of each block, by index. */
function byBlock(output: string): string[][] {
  const lines: string[][] = [];
  for (const line of output.split('\n')) {
    const marker = /^::block (\d+)$/.exec(line);
    if (marker) lines[Number(marker[1])] = [];
    else if (line !== '') lines.at(-1)?.push(line);
  }
  return lines;
}

/** An answer printed with `-w ' HTTP %{http_code}\n'`: its status and body. */
function withStatus(line: string): { status: number; body: any } {
  const [, body, status] = /^(.*) HTTP (\d{3})$/.exec(line) ?? [];
  expect(body, line).toBeDefined();
  return { status: Number(status), body: JSON.parse(body) };
}

const sum = (charges: { amount: number }[]) => charges.reduce((total, charge) => total + charge.amount, 0);
/** Half up to the cent, as the ledger rounds (cancellation-charges.ts). */
const halfUp = (value: number) => Math.floor(value + 0.5);
const addDays = (date: string, days: number) => new Date(Date.parse(date) + days * 864e5).toISOString().slice(0, 10);

/**
 * The API guide's calls (docs/api-guide.md): every `sh` block, in order, as a reader pastes them
 * into one terminal, run with bash and curl against the service started as `npm start` starts it
 * (embedded PostgreSQL, the printed development token), on whichever Node runs this test: CI runs
 * this file on Node 24 with the suite and again on Node 26 (contract section 16). Only the
 * service's address (`BASE`) and the webhook receiver's port are the test's own; between two
 * blocks the test prints a marker line, so that each block's answers can be checked by section.
 */
describe("the API guide's calls", () => {
  let started: Started | undefined;
  let dataDir = '';
  afterAll(async () => {
    if (started) expect((await stopMain(started.child)).code).toBe(0);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('run in order, every block, and are answered as the guide says, by the Node that runs the test', { timeout: 240_000 }, async () => {
    const blocks = guideBlocks();
    const sections = [...new Set(blocks.map((block) => block.section))];
    dataDir = await mkdtemp(join(tmpdir(), 'org-policy-guide-'));
    started = await startMain({ DATA_DIR: dataDir });
    expect(started.token, started.output()).toBeDefined();

    const version = (await (await fetch(new URL('/version', started.url))).json()) as { node: string };
    expect(version.node).toBe(process.version);

    const receiverPort = String(await freePort());
    const script = blocks
      .map(({ script }, index) => {
        const text = script.includes('webhook-receiver') ? script.replaceAll('4100', receiverPort) : script;
        return `echo '::block ${index}'; echo '::block ${index}' >&2\n${text}`;
      })
      .join('\n')
      .replace(/^BASE=.*$/m, `BASE=${started.url.replace(/\/$/, '')}`);
    expect(script).not.toContain('4100');
    // DATA_DIR: the token script signs with the development secret the service keeps there.
    const run = await bash(script, { TOKEN: started.token!, DATA_DIR: dataDir }, dataDir);
    expect(run.code, run.stderr).toBe(0);
    const stdout = byBlock(run.stdout);
    const stderr = byBlock(run.stderr);
    expect(stdout, 'every block ran').toHaveLength(blocks.length);

    /** The lines the blocks of one section printed, in order. */
    const printed = (section: string, from = stdout) => {
      expect(sections, section).toContain(section);
      return blocks.flatMap((block, index) => (block.section === section ? from[index] : []));
    };
    const answers = (section: string) => printed(section).map((line) => JSON.parse(line));

    // Start: BASE alone. More tokens: TOKEN, nothing printed.
    expect(printed('Start')).toEqual([]);
    expect(printed('More tokens')).toEqual([]);

    // The walk-through: each read prints one line (curl -w '\n'); the creates go to stderr through tee.
    const [organization, policy, transactions, list, graphql, quote, issuedQuote, changedOrganization] = answers('A walk-through');
    expect(organization).toMatchObject({ name: 'Paws & Claws LLC', parentId: null, version: 1, address: { dock: 'B' } });
    expect(changedOrganization).toMatchObject({
      id: organization.id,
      version: 2,
      email: 'billing@pawsandclaws.example',
      address: { line1: '1 Main St', city: 'Round Rock', country: 'US' },
      bankAccounts: [{ nickname: 'payroll', routing: '110000000', accountLast4: '4321' }],
      owners: [{ firstname: 'Ada', taxIdLast4: '6789' }],
    });
    expect(changedOrganization.address).not.toHaveProperty('dock');
    expect(policy).toMatchObject({ coverage: { slug: 'accident-illness-basic' }, organization: { id: organization.id } });
    expect(policy).not.toHaveProperty('cvc');
    expect(policy.charges.length).toBeGreaterThan(0);
    expect(policy.status).toEqual(expect.any(String));
    expect(transactions.data.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance']);
    expect(policy.charges[0].transactionId).toBe(transactions.data[0].id);
    expect(list.data.map((item: { number: number }) => item.number)).toEqual([policy.number]);
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.policy).toMatchObject({ number: policy.number, petName: 'Biscuit', organization: { id: organization.id } });
    // The quote the guide shows (its ids and expiresAt aside).
    expect(quote).toMatchObject({ organizationId: organization.id, totalPremium: 3000, status: 'open', policyNumber: null });
    expect(quote.charges.map((charge: { amount: number }) => charge.amount)).toEqual([1200, 1200, 600]);
    // Issued: the quote names the policy, whose create answer (on stderr, last) has the quote's charges.
    expect(issuedQuote).toMatchObject({ id: quote.id, status: 'issued', policyNumber: expect.any(Number) });
    const created = printed('A walk-through', stderr).map((line) => JSON.parse(line));
    expect(created.map((answer) => answer.id)).toEqual([organization.id, policy.id, quote.id, expect.any(String)]);
    const issued = created[3];
    expect(issued).toMatchObject({
      number: issuedQuote.policyNumber,
      internalID: 'ext-quote-1',
      coverage: quote.coverage,
      organization: { id: organization.id },
    });
    expect(
      issued.charges.map(({ id: _id, transactionId: _transaction, reverses: _reverses, ...charge }: Record<string, unknown>) => charge),
    ).toEqual(quote.charges);

    // A policy's life (contract section 14), dated from today: changed, cancelled, reinstated, renewed.
    const [changed, cancelled, reinstated, renewed, lifeTransactions, reread] = answers("A policy's life");
    // Versions (contract section 14, "Versions and ordering"): one more per transaction, the successor's 1.
    expect([changed.version, cancelled.version, reinstated.version, reread.version, renewed.version]).toEqual([2, 3, 4, 4, 1]);
    const life = changed;
    // A change of a name writes no charge: the change's answer owes the issuance's premiums.
    expect(changed).toMatchObject({ status: 'active', ownerLastname: 'Diaz-Ortiz', cancellation: null, renewedBy: null });
    expect(changed.charges.every((charge: { type: string }) => charge.type === 'premium')).toBe(true);
    expect(cancelled).toMatchObject({
      number: life.number,
      status: 'active',
      cancellation: { reason: 'insured_request', method: 'short_rate' },
    });
    expect(cancelled.cancellation.credited).toBeLessThan(0);
    expect(sum(cancelled.charges)).toBe(sum(life.charges) + cancelled.cancellation.credited + cancelled.cancellation.fee);
    expect(reinstated).toMatchObject({ number: life.number, status: 'active', cancellation: null });
    expect(sum(reinstated.charges)).toBe(sum(life.charges));
    expect(renewed).toMatchObject({ renewalOf: life.number, status: 'pending', coverage: { slug: 'accident-illness-plus' } });
    expect(lifeTransactions.data.map((transaction: { type: string }) => transaction.type)).toEqual([
      'issuance',
      'change',
      'cancellation',
      'reinstatement',
    ]);
    expect(lifeTransactions.data[1].changes).toEqual({ ownerLastname: { from: 'Diaz', to: 'Diaz-Ortiz' } });
    expect(lifeTransactions.data[1].createdBy).toBe('dev');

    // Cancelling and reinstating: a year of 4200 from the 1st of a month, cancelled from the 10th of the next.
    const [shortRate, twice, back, shortRateTransactions] = printed('Cancelling and reinstating a policy');
    const plus = JSON.parse(shortRate);
    const { effectiveDate: start } = plus;
    const cancelledFrom = plus.cancellation.effectiveDate;
    expect(start).toMatch(/-01$/);
    const nextMonth = addDays(start, 31).slice(0, 8) + '01';
    expect(cancelledFrom).toBe(nextMonth.slice(0, 8) + '10');
    // The month of the cancellation is credited for its days from the 10th on, the ten after it whole.
    const daysInMonth = new Date(Date.UTC(Number(nextMonth.slice(0, 4)), Number(nextMonth.slice(5, 7)), 0)).getUTCDate();
    const credited = -(halfUp((4200 * (daysInMonth - 9)) / daysInMonth) + 10 * 4200);
    expect(plus).toMatchObject({
      status: 'active',
      coverage: { slug: 'accident-illness-plus', monthlyPremium: 4200 },
      cancellation: { reason: 'insured_request', method: 'short_rate', credited, fee: halfUp(-credited / 10) },
    });
    expect(sum(plus.charges.filter((charge: { type: string }) => charge.type === 'credit'))).toBe(credited);
    expect(sum(plus.charges)).toBe(12 * 4200 + credited + halfUp(-credited / 10));
    expect(withStatus(twice)).toEqual({
      status: 409,
      body: expect.objectContaining({
        code: 'INVALID_STATE',
        detail: `Policy ${plus.number} already has a cancellation effective ${cancelledFrom}; reinstate it first.`,
      }),
    });
    const reinstatedPlus = JSON.parse(back);
    expect(reinstatedPlus).toMatchObject({ number: plus.number, status: 'active', cancellation: null });
    expect(sum(reinstatedPlus.charges)).toBe(50400);
    expect(reinstatedPlus.charges.filter((charge: { type: string }) => charge.type === 'reversal')).toHaveLength(12);
    const plusTransactions = JSON.parse(shortRateTransactions).data;
    expect(plusTransactions.map((transaction: { type: string }) => transaction.type)).toEqual([
      'issuance',
      'cancellation',
      'reinstatement',
    ]);
    expect(plusTransactions[1].changes).toEqual({
      cancellation: { from: null, to: { effectiveDate: cancelledFrom, reason: 'insured_request', method: 'short_rate' } },
    });
    expect(plusTransactions[1].createdBy).toBe('alice');

    // Billing (contract section 19): a year of 4200 from the 1st four months ago, five payments, a
    // cancellation from the 1st of this month, its credit refunded.
    const [unpaid, ...afterBilling] = printed('Billing: payments, refunds and what is owed');
    const [paid1, paid2, paid3, paid4, paid5, samePayment, cancelledPaid, refundTooMuch, refunded, paymentsList] = afterBilling;
    expect(JSON.parse(unpaid)).toMatchObject({
      version: 1,
      billing: { billed: 21000, paid: 0, balance: 21000, pastDue: 21000, status: 'past_due', nextDueAmount: 4200 },
    });
    expect([paid1, paid2, paid3, paid4].map((line) => JSON.parse(line).billing.paid)).toEqual([4200, 8400, 12600, 16800]);
    expect(JSON.parse(paid5)).toMatchObject({
      version: 6,
      billing: { billed: 21000, paid: 21000, balance: 0, pastDue: 0, status: 'settled' },
    });
    expect(withStatus(samePayment)).toEqual({ status: 409, body: expect.objectContaining({ code: 'CONFLICT' }) });
    expect(JSON.parse(cancelledPaid)).toEqual({
      version: 7,
      status: 'cancelled',
      billing: { billed: 16800, paid: 21000, balance: -4200, pastDue: 0, status: 'credit', nextDueDate: null, nextDueAmount: null },
    });
    expect(withStatus(refundTooMuch)).toEqual({
      status: 409,
      body: expect.objectContaining({ code: 'INVALID_STATE', detail: expect.stringContaining('credit balance of 4200') }),
    });
    expect(JSON.parse(refunded)).toMatchObject({
      version: 8,
      billing: { billed: 16800, paid: 16800, balance: 0, pastDue: 0, status: 'settled' },
    });
    expect(JSON.parse(paymentsList)).toMatchObject({ data: [{ type: 'payment', amount: 4200 }, { type: 'payment' }], hasMore: true });

    // Changing: a year of 2900 from the 1st of last month, on the richer plan from the 1st of this one.
    const [planChange, newName, basicTransactions, notBillingDate] = printed('Changing a policy');
    const basic = JSON.parse(planChange);
    expect(basic).toMatchObject({
      status: 'active',
      petName: 'Biscuit Diaz',
      coverage: { slug: 'accident-illness-plus', monthlyPremium: 4200 },
    });
    expect(sum(basic.charges)).toBe(2900 + 11 * 4200);
    expect(JSON.parse(newName)).toEqual({ data: { policy: { petName: 'Biscuit Diaz' } } });
    const change = JSON.parse(basicTransactions).data[1];
    expect(change).toMatchObject({
      type: 'change',
      changes: {
        petName: { from: 'Biscuit', to: 'Biscuit Diaz' },
        coverageSlug: { from: 'accident-illness-basic', to: 'accident-illness-plus' },
        coverage: { from: { slug: 'accident-illness-basic' }, to: { slug: 'accident-illness-plus' } },
      },
    });
    const secondPeriod = basic.charges.find((charge: { type: string }) => charge.type === 'credit').periodEnd;
    expect(withStatus(notBillingDate)).toMatchObject({
      status: 400,
      body: {
        code: 'BAD_USER_INPUT',
        errors: [
          {
            path: 'effectiveDate',
            message: `a change of coverage takes effect on a billing date, the start of a schedule period (the next is ${secondPeriod})`,
          },
        ],
      },
    });

    // Renewing: a policy that ends in 20 days renewed on the richer plan, then twice, and one outside its window.
    const [renewal, renewedTwice, tooEarly] = printed('Renewing a policy');
    const successor = JSON.parse(renewal);
    expect(successor).toMatchObject({ status: 'pending', renewedBy: null, coverage: { slug: 'accident-illness-plus' } });
    expect(successor.charges.map((charge: { type: string; amount: number }) => [charge.type, charge.amount])).toEqual(
      Array(12).fill(['premium', 4200]),
    );
    expect(withStatus(renewedTwice)).toMatchObject({
      status: 409,
      body: { code: 'INVALID_STATE', detail: `Policy ${successor.renewalOf} has already been renewed by policy ${successor.number}.` },
    });
    const early = withStatus(tooEarly);
    expect(early).toMatchObject({ status: 409, body: { code: 'INVALID_STATE' } });
    const [, from, expiration] = /can be renewed from (\S+), 60 days before its expirationDate \((\S+)\)\.$/.exec(early.body.detail) ?? [];
    expect(addDays(from, 60)).toBe(expiration);

    // Changing an organization: the walk-through's change again (412), three broken rules (400), the event.
    const [stale, broken, updates] = printed('Changing an organization');
    expect(withStatus(stale)).toEqual({
      status: 412,
      body: {
        type: 'about:blank',
        title: 'Precondition Failed',
        status: 412,
        detail: 'The organization is at version 2, not 1; read it again and reapply the change.',
        code: 'PRECONDITION_FAILED',
      },
    });
    const refused = withStatus(broken);
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual(['parentId', 'legalName', 'email']);
    const [updated] = JSON.parse(updates).data;
    expect(updated).toMatchObject({
      type: 'organization.updated',
      actor: { sub: 'dev' },
      data: {
        object: { id: organization.id, version: 2 },
        previousAttributes: { email: null, address: { line1: '1 Main St', city: 'Austin', country: 'US', dock: 'B' } },
      },
    });

    // Retries: the create, then its replay.
    const [retried, replayed] = printed('Retries: Idempotency-Key');
    expect(JSON.parse(retried)).toMatchObject({ name: 'Retry Safe LLC', parentId: organization.id });
    expect(replayed).toMatch(/^idempotent-replayed: true\r?$/i);

    // Audit log (contract section 21): the list, the filtered list, the export's first line, the chain checked.
    const [auditPage, cancellations, firstExported, verified] = answers('Audit log');
    expect(auditPage.data).toHaveLength(2);
    expect(auditPage.data[0]).toMatchObject({
      actor: { sub: 'alice', apiKeyId: null, ip: expect.any(String) },
      requestId: expect.any(String),
    });
    expect(cancellations.data).toEqual([expect.objectContaining({ action: expect.stringMatching(/^policy\.(cancel|reinstate)$/) })]);
    expect(firstExported).toMatchObject({
      action: 'organization.create',
      organizationId: organization.id,
      actor: { sub: 'dev' },
      position: 1,
      prevHash: '0'.repeat(64),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(verified).toMatchObject({ ok: true, firstBrokenId: null });
    expect(verified.checked).toBeGreaterThan(20);

    // Errors: the GraphQL answer the comment shows, with its status.
    const [invalid] = printed('Errors');
    expect(withStatus(invalid)).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: '2 fields are invalid.',
            extensions: {
              code: 'BAD_USER_INPUT',
              errors: [
                { path: 'ownerFirstname', message: 'is required and must not be blank' },
                { path: 'effectiveDate', message: 'must be a real calendar date as YYYY-MM-DD' },
              ],
            },
          },
        ],
      },
    });

    // REST reads, lookups and typos: by internalID, then a misspelt field, a misspelt filter and a misspelt change.
    const [byInternalId, typo, filterTypo, changeTypo] = answers('REST reads, lookups and typos');
    expect(byInternalId).toMatchObject({ data: [{ number: issued.number, internalID: 'ext-quote-1' }], hasMore: false, nextCursor: null });
    expect(typo).toMatchObject({
      detail: '2 fields are invalid.',
      code: 'BAD_USER_INPUT',
      errors: [
        { path: 'petDob', message: 'is not a field of this request; did you mean "petDOB"?' },
        { path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' },
      ],
    });
    expect(filterTypo).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'staus', message: 'is not a parameter of this request; did you mean "status"?' }],
    });
    // Nothing written: the next section's change is the organization's version 3, as if this one had not been sent.
    expect(changeTypo).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ path: 'emial', message: 'is not a field of this request; did you mean "email"?' }],
    });

    // Search and filters (contract section 23): a typo found, organizations by legal name, a filtered list, GraphQL.
    const [found, organizations, filtered, searched] = answers('Search and filters');
    expect(found.data.length).toBeGreaterThan(0);
    expect(found.data.every((item: { petName: string }) => /biscuit/i.test(item.petName))).toBe(true);
    expect(organizations.data.map((item: { id: string }) => item.id)).toContain(organization.id);
    expect(filtered.data.length).toBeGreaterThan(0);
    expect(
      filtered.data.every(
        (item: { coverageSlug: string; effectiveDate: string }) =>
          item.coverageSlug === 'accident-illness-basic' && item.effectiveDate >= '2026-01-01',
      ),
    ).toBe(true);
    expect(searched.errors).toBeUndefined();
    const searchedPolicies = searched.data.viewer.searchPolicies.edges.map((edge: { node: unknown }) => edge.node);
    expect(searchedPolicies.length).toBeGreaterThan(0);
    expect(
      searchedPolicies.every((node: { petName: string; coverageSlug: string }) => node.coverageSlug === 'accident-illness-basic'),
    ).toBe(true);

    // Events and webhooks (issue 36, F25): the block's own change reaches the receiver, verified.
    const [delivery] = answers('Events and webhooks');
    expect(delivery).toMatchObject({
      verified: true,
      answered: 200,
      type: 'organization.updated',
      event: { organizationId: organization.id, actor: { sub: 'alice' }, data: { object: { phone: '+1 512 555 0100', version: 3 } } },
    });
    expect(delivery.webhookId).toBe(delivery.event.id);

    // Managing webhooks (contract section 22): a receiver with the old secret and one with the new verify a test event
    // during the rotation's grace; paused, enabled, and a recovery delivers the change made while paused, once.
    const [oldTest, oldReceived, newTest, newReceived, paused, resumed, recovered, missed, attempts] = answers('Managing webhooks');
    for (const [test, received] of [
      [oldTest, oldReceived],
      [newTest, newReceived],
    ]) {
      expect(Object.keys(test).sort()).toEqual(['deliveryId', 'eventId']);
      expect(received).toMatchObject({ verified: true, answered: 200, webhookId: test.eventId, type: 'webhook.test' });
      expect(received.event.data.object.endpointId).toBe(paused.id);
    }
    expect(paused).toMatchObject({ status: 'disabled', disabledReason: 'disabled by request' });
    expect(resumed).toMatchObject({ id: paused.id, status: 'active', disabledReason: null });
    expect(recovered).toEqual({ queued: 1 });
    expect(missed).toMatchObject({
      verified: true,
      type: 'organization.updated',
      event: { organizationId: organization.id, data: { object: { phone: '+1 512 555 0199' } } },
    });
    expect(attempts.data).toEqual([expect.objectContaining({ eventId: missed.webhookId, attempt: 1, responseStatus: 200, error: null })]);

    // Limits on callers: the two fields.
    const [policyHeader, remaining] = printed('Limits on callers');
    expect(policyHeader).toMatch(/^RateLimit-Policy: "requests";q=6000;w=60\r?$/i);
    expect(remaining).toMatch(/^RateLimit: "requests";r=\d+;t=\d+\r?$/i);

    // API keys for servers (contract section 20): a key's calls, its refusals, a rotation and a revocation.
    const [readByKey, outOfScope, typoKey, inGrace, newKey, keys, revokedKey, afterRevoke] = printed('API keys for servers');
    expect(readByKey).toBe('read with the key: HTTP 200');
    expect(JSON.parse(outOfScope)).toMatchObject({ status: 403, code: 'FORBIDDEN', detail: expect.stringContaining('"events:read"') });
    expect(typoKey).toMatch(/^typo: HTTP 401 Bearer .*checksum does not match/);
    expect([inGrace, newKey, revokedKey]).toEqual(['old key in its grace: HTTP 200', 'new key: HTTP 200', 'revoke: HTTP 204']);
    const listed = JSON.parse(keys).data;
    expect(listed.map((key: { name: string }) => key.name)).toEqual(['nightly billing batch', 'nightly billing batch']);
    expect(keys).not.toContain('"key"');
    expect(JSON.parse(afterRevoke)).toMatchObject({ status: 401, detail: 'Invalid token: this API key was revoked.' });

    // Every section with a block was checked above.
    expect(sections).toEqual([
      'Start',
      'A walk-through',
      "A policy's life",
      'More tokens',
      'API keys for servers',
      'Cancelling and reinstating a policy',
      'Billing: payments, refunds and what is owed',
      'Changing a policy',
      'Renewing a policy',
      'Changing an organization',
      'Retries: Idempotency-Key',
      'Audit log',
      'Errors',
      'REST reads, lookups and typos',
      'Search and filters',
      'Events and webhooks',
      'Managing webhooks',
      'Limits on callers',
    ]);
  });
});
