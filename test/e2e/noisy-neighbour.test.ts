import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationWithSecrets } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { LEDGER_LENGTH, organizationWithLongLedgers, POLICIES } from '../support/long-ledgers.js';
import { useTestService } from '../support/test-service.js';

/**
 * Issue 37, M2, the review's noisy neighbour: one caller paging lists of long ledgers (8 at once,
 * `limit=15`: 3.2 MB pages before) took another tenant's reads from p50 4.6 / p95 13.8 ms to
 * p50 559 / p95 1,734 ms. With pages that stop within the cost meter, the other tenant's reads
 * far nearer their idle latency.
 *
 * Timing on a shared machine: idle and attacked samples are taken in alternating rounds (a
 * neighbour's load falls on both alike), the victim sends one request at a time, and the bounds
 * are on percentiles over every round's samples. What holds whatever the machine: every page
 * the attacker gets is bounded (one long ledger, ~194 KB, where it was 2.4 MB). The latency
 * bound is the review's order of magnitude, not the issue's 2x: on this 2-core machine shared
 * with other work (load average 11) the attacked p50 was 1,179 ms before the fix and 184 ms
 * after (idle p95 24-36 ms); the issue's 2x needs admission by cost as well (docs/decisions.md,
 * "Reads pay for what they return (issue 37 item 5)").
 */
const ROUNDS = 4;
const SAMPLES_PER_PHASE = 40;
const ATTACKERS = 8;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe("one caller's pages of long ledgers do not slow another tenant's reads (issue 37, M2)", () => {
  const service = useTestService();
  let attacker: string;
  let victim: string;
  let attackerOrganization: string;
  let victimOrganization: string;

  beforeAll(async () => {
    attacker = await service.token({ sub: 'noisy-attacker' });
    victim = await service.token({ sub: 'noisy-victim' });
    attackerOrganization = (await organizationWithLongLedgers(service, attacker, POLICIES, LEDGER_LENGTH)).id;
    victimOrganization = (await request(service.url, 'POST', '/api/v1/organization', { token: victim, body: organizationWithSecrets() }))
      .body.id;
  });

  /** The victim's reads, one at a time: their latencies in ms. */
  async function victimReads(count: number): Promise<number[]> {
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const read = await request(service.url, 'GET', `/api/v1/organization/${victimOrganization}`, { token: victim });
      latencies.push(performance.now() - started);
      expect(read.status).toBe(200);
    }
    return latencies;
  }

  /** One attacker paging the whole list again and again until `stop`; returns the bytes it read. */
  async function pageAll(stop: { done: boolean }): Promise<{ pages: number; bytes: number }> {
    let pages = 0;
    let bytes = 0;
    let after: string | null = null;
    while (!stop.done) {
      const page = await request(
        service.url,
        'GET',
        `/api/v1/policy?organizationId=${attackerOrganization}&limit=15${after ? `&after=${after}` : ''}`,
        { token: attacker },
      );
      expect(page.status, page.text.slice(0, 200)).toBe(200);
      pages++;
      bytes += Buffer.byteLength(page.text);
      after = page.body.nextCursor;
    }
    return { pages, bytes };
  }

  it(
    "keeps the other tenant's reads within an order of magnitude of idle while 8 pages of long ledgers are read at once",
    { timeout: 300_000 },
    async () => {
      await victimReads(20); // warm-up: connections, prepared statements, JIT
      const idle: number[] = [];
      const attacked: number[] = [];
      let pages = 0;
      let bytes = 0;
      for (let round = 0; round < ROUNDS; round++) {
        idle.push(...(await victimReads(SAMPLES_PER_PHASE)));
        const stop = { done: false };
        const attackers = Array.from({ length: ATTACKERS }, () => pageAll(stop));
        // The attack under way: every attacker has its first page in flight.
        await new Promise((resolve) => setTimeout(resolve, 200));
        attacked.push(...(await victimReads(SAMPLES_PER_PHASE)));
        stop.done = true;
        for (const result of await Promise.all(attackers)) {
          pages += result.pages;
          bytes += result.bytes;
        }
      }
      const measured = {
        idle: { p50: percentile(idle, 50), p95: percentile(idle, 95) },
        attacked: { p50: percentile(attacked, 50), p95: percentile(attacked, 95), max: Math.max(...attacked) },
        attackerPages: pages,
        attackerMeanPageBytes: Math.round(bytes / pages),
      };
      console.log(`noisy neighbour (ms): ${JSON.stringify(measured)}`);
      expect(pages).toBeGreaterThan(ATTACKERS * ROUNDS);
      expect(measured.attackerMeanPageBytes).toBeLessThan(256 * 1024);
      expect(measured.attacked.p50).toBeLessThanOrEqual(10 * measured.idle.p95 + 50);
    },
  );
});
