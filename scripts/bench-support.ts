import { readFileSync } from 'node:fs';

/** What the bench scripts (bench.ts, bench-memory.ts) share: the service's settings and /proc readings. */

export const JWT_SECRET = 'benchmark-secret-that-is-at-least-32-bytes';

/** The environment of a service (or baseline) the bench scripts start on `databaseUrl`: production, one process, the bench's secrets. */
export function benchEnv(databaseUrl: string, logLevel = 'warn'): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET,
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: logLevel,
    HOST: '127.0.0.1',
    WEB_CONCURRENCY: '1',
  };
}

/** Every budget on, and too large for the benchmark to reach. */
export const LIMITS_HIGH = {
  RATE_LIMIT_REQUESTS_PER_MINUTE: '999999999',
  RATE_LIMIT_CREATES_PER_MINUTE: '999999999',
  RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '999999999',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '999999999',
  RATE_LIMIT_CONCURRENT_REQUESTS: '100000',
};

/**
 * Tracing on, each compared with tracing off in the same run (contract section 13's three
 * targets): the sampler set to sample nothing, no sampler set (the service's default,
 * parent-based one in ten), and every request sampled.
 */
export const TRACED: ReadonlyArray<{ label: string; sampler: Record<string, string> }> = [
  { label: 'sampling nothing', sampler: { OTEL_TRACES_SAMPLER: 'always_off' } },
  { label: 'the default (one in ten sampled)', sampler: {} },
  { label: 'every request sampled', sampler: { OTEL_TRACES_SAMPLER: 'always_on' } },
];

/** The benchmark's GraphQL policy read, as a frontend would send its text. */
export const POLICY_QUERY =
  'query Policy($number: SafeInt!) { policy(number: $number) { number coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency } ' +
  'charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses } organization { id name parentId } } }';

/** User + system CPU time of a process so far, in milliseconds (clock ticks of 10 ms). */
export function cpuMillis(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The highest RSS a process has had (the kernel's high-water mark), in MB. */
export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Resolves once something answers HTTP on `port` (any status), or throws after 30 s. */
export async function ready(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/v1/policy/1`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`nothing listens on ${port}`);
}
