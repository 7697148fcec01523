import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type Started } from '../support/service-process.js';

/** The shell blocks of the README's "Call it" section, as a reader would paste them. */
function readmeCalls(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Call it'), readme.indexOf('To get more tokens'));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) => block[1]).join('\n');
}

/** Runs `script` with bash; its stderr goes to a file, as a terminal's would be a device (`tee /dev/stderr` cannot open a socket). */
function bash(
  script: string,
  env: Record<string, string>,
  stderrFile: string,
): Promise<{ code: number | null; stdout: string; stderr: () => string }> {
  return new Promise((resolve) => {
    const stderr = openSync(stderrFile, 'w');
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', stderr] });
    closeSync(stderr);
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.once('close', (code) => resolve({ code, stdout, stderr: () => readFileSync(stderrFile, 'utf8') }));
  });
}

/**
 * The README's calls, run with bash and curl against the service started as `npm start` starts it
 * (embedded PostgreSQL, the printed development token), on whichever Node runs this test: CI runs
 * this file on Node 24 with the suite and again on Node 26 (contract section 16).
 */
describe("the README's calls", () => {
  let started: Started | undefined;
  let dataDir = '';
  afterAll(async () => {
    if (started) expect((await stopMain(started.child)).code).toBe(0);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('are answered as the README says, by the Node that runs the test', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'org-policy-readme-'));
    started = await startMain({ DATA_DIR: dataDir });
    expect(started.token, started.output()).toBeDefined();

    const version = (await (await fetch(new URL('/version', started.url))).json()) as { node: string };
    expect(version.node).toBe(process.version);

    const script = readmeCalls().replace(/^BASE=.*$/m, `BASE=${started.url.replace(/\/$/, '')}`);
    const run = await bash(script, { TOKEN: started.token! }, join(dataDir, 'calls.stderr'));
    expect(run.code, run.stderr()).toBe(0);

    // Each read prints one line (curl -w '\n'); the creates go to stderr through tee.
    const [
      organization,
      policy,
      transactions,
      list,
      graphql,
      quote,
      issuedQuote,
      changedOrganization,
      changed,
      cancelled,
      reinstated,
      renewed,
      lifeTransactions,
    ] = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(organization).toMatchObject({ name: 'Paws & Claws LLC', parentId: null, version: 1 });
    // The change (contract section 15): merged, its accounts replaced, one version more.
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
    expect(policy.charges.length).toBeGreaterThan(0);
    expect(policy.status).toEqual(expect.any(String));
    expect(transactions.data.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance']);
    expect(policy.charges[0].transactionId).toBe(transactions.data[0].id);
    expect(list.data.map((item: { number: number }) => item.number)).toEqual([policy.number]);
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.policy).toMatchObject({ number: policy.number, petName: 'Biscuit', organization: { id: organization.id } });
    // The quote the README shows (its ids and expiresAt aside).
    expect(quote).toMatchObject({ organizationId: organization.id, totalPremium: 3000, status: 'open', policyNumber: null });
    expect(quote.charges.map((charge: { amount: number }) => charge.amount)).toEqual([1200, 1200, 600]);
    // Issued: the quote names the policy, whose create answer (on stderr, last) has the quote's charges.
    expect(issuedQuote).toMatchObject({ id: quote.id, status: 'issued', policyNumber: expect.any(Number) });
    const issued = JSON.parse(run.stderr().trim().split('\n').at(-1)!);
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
    const owed = (policy: { charges: { amount: number }[] }) => policy.charges.reduce((sum, charge) => sum + charge.amount, 0);
    // A change of a name writes no charge: the change's answer owes the issuance's premiums.
    const life = changed;
    expect(changed).toMatchObject({ status: 'active', cancellation: null, renewedBy: null });
    expect(changed.charges.every((charge: { type: string }) => charge.type === 'premium')).toBe(true);
    expect(cancelled).toMatchObject({
      number: life.number,
      status: 'active',
      cancellation: { reason: 'insured_request', method: 'short_rate' },
    });
    expect(cancelled.cancellation.credited).toBeLessThan(0);
    expect(owed(cancelled)).toBe(owed(life) + cancelled.cancellation.credited + cancelled.cancellation.fee);
    expect(reinstated).toMatchObject({ number: life.number, status: 'active', cancellation: null });
    expect(owed(reinstated)).toBe(owed(life));
    expect(renewed).toMatchObject({ renewalOf: life.number, status: 'pending', coverage: { slug: 'accident-illness-plus' } });
    expect(lifeTransactions.data.map((transaction: { type: string }) => transaction.type)).toEqual([
      'issuance',
      'change',
      'cancellation',
      'reinstatement',
    ]);
    expect(lifeTransactions.data[1].changes).toEqual({ ownerLastname: { from: 'Diaz', to: 'Diaz-Ortiz' } });
  });
});
