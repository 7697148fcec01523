import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineAnswer, preparedStatements, type StatementRunner } from '../../scripts/bench-baseline-answers.js';
import {
  difference,
  madeRecordComparisons,
  scenarioComparisons,
  type Comparison,
  type Made,
  type Sent,
} from '../../scripts/bench-check-cases.js';
import { roundRobin, trustedPolicyDocument } from '../../scripts/bench-scenarios.js';
import { LIMITS_HIGH } from '../../scripts/bench-support.js';
import type { SeedTree } from '../../scripts/seed.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * `npm run bench:check` in the fast tier: the benchmark's baseline (scripts/bench-baseline-answers.ts,
 * hand-written SQL) must answer exactly what the service answers, so that a new policy or
 * organization field, or a new rule of a policy's state, cannot silently make the baseline
 * cheaper than the service. The same comparisons as the script (scripts/bench-check-cases.ts):
 * the bench's requests over two small trees, and reads of records with every field and in every
 * state; the service is the operation core in process, the baseline its statements on the same
 * database. The script also runs both as the bench starts them (built, over HTTP, on a seed).
 */
const trusted = trustedPolicyDocument();
const manifestDir = mkdtempSync(join(tmpdir(), 'org-policy-bench-baseline-'));
const manifestPath = join(manifestDir, 'persisted-documents.json');
writeFileSync(manifestPath, JSON.stringify({ [trusted.id]: trusted.text }));

describe('the benchmark baseline', () => {
  const service = useInProcessService({ GRAPHQL_TRUSTED_DOCUMENTS: manifestPath, ...LIMITS_HIGH });
  let pool: pg.Pool;
  let one: StatementRunner;
  const trees: SeedTree[] = [];
  const tokens: string[] = [];
  const deepParents = new Map<string, string>();

  /** The service's answer, in process. */
  const fromService = async (request: Comparison['request']): Promise<Sent> => {
    const response = await service.request(request.method, request.path, { token: request.token, body: request.body });
    return { status: response.status, text: response.text, etag: response.headers.get('etag') };
  };
  /** The baseline's answer, for the claims its token carries (the service has verified the same token). */
  const fromBaseline = async (request: Comparison['request']): Promise<Sent> => {
    const { sub, org } = decodeJwt(request.token);
    const who = { sub: sub!, org: typeof org === 'string' ? org : null };
    const answer = await baselineAnswer(pool, one, who, request.method, request.path, async () => JSON.parse(request.body!));
    return { status: answer.status, text: answer.body, etag: answer.headers?.etag ?? null };
  };
  const differences = async (comparisons: Comparison[]) => {
    const found: string[] = [];
    for (const comparison of comparisons) {
      const answered = await fromService(comparison.request);
      const differs = difference(comparison, answered, await fromBaseline(comparison.baselineRequest ?? comparison.request));
      if (differs) found.push(differs);
    }
    return found;
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: service.databaseUrl, max: 2 });
    one = preparedStatements(pool);
    // Two trees of two owners, as the seed makes them (scripts/seed.ts), three levels deep: a
    // root, a middle organization, two deepest ones with two policies each.
    for (const ownerSub of ['bench-owner-1', 'bench-owner-2']) {
      const owner = await service.token({ sub: ownerSub });
      const create = async (path: string, body: Record<string, unknown>) =>
        (await service.request('POST', path, { token: owner, body })).body as { id: string; number: number };
      const root = await create('/api/v1/organization', organizationBody());
      const middle = await create('/api/v1/organization', organizationBody({ parentId: root.id }));
      const deepest = [
        (await create('/api/v1/organization', organizationBody({ parentId: middle.id }))).id,
        (await create('/api/v1/organization', organizationBody({ parentId: middle.id }))).id,
      ];
      const deepPolicies: number[] = [];
      for (const organizationId of [...deepest, ...deepest])
        deepPolicies.push((await create('/api/v1/policy', policyBody({ organizationId }))).number);
      trees.push({ rootId: root.id, ownerSub, deepest, deepPolicies });
      tokens.push(await service.token({ sub: ownerSub, org: root.id }));
      deepParents.set(root.id, middle.id);
    }
  });

  afterAll(async () => {
    await pool?.end();
    rmSync(manifestDir, { recursive: true, force: true });
  });

  it("answers the bench's requests exactly as the service does", async () => {
    const comparisons = scenarioComparisons(roundRobin(trees, tokens), deepParents, trusted.id);
    expect(comparisons.length).toBeGreaterThan(20);
    expect(await differences(comparisons)).toEqual([]);
  });

  it('answers reads of records with every field and in every state exactly as the service does', async () => {
    const made: Made = async (method, path, body) => {
      const response = await service.request(method, path, { token: tokens[0], body });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
      return response.body;
    };
    const comparisons = await madeRecordComparisons(made, trees[0], tokens[0], trees[1], trusted.id);
    expect(comparisons.length).toBeGreaterThan(30);
    expect(await differences(comparisons)).toEqual([]);
  });
});
