import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterClusterMaster, RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * `node dist/scripts/bench-cluster-rate-limit.js`: what counting reads across the workers of a
 * machine would cost (docs/decisions.md, "WEB_CONCURRENCY"). A worker consumes points from
 * rate-limiter-flexible's `RateLimiterMemory` (what each worker does today) and from its
 * `RateLimiterCluster` (one IPC round trip to the primary per consume), one at a time (the
 * latency a request would wait) and 64 at a time (the CPU per consume, in the worker and in
 * the primary, which answers every worker). Prints JSON: microseconds per consume.
 */
const CONSUMES = 20_000;

if (cluster.isPrimary) {
  new RateLimiterClusterMaster();
  const worker = cluster.fork();
  let started: NodeJS.CpuUsage | undefined;
  worker.on('message', (message: { type?: string; result?: Record<string, number> }) => {
    if (message.type === 'measure-primary') started = process.cpuUsage();
    if (message.type === 'measured') {
      const used = process.cpuUsage(started);
      worker.send({ type: 'primary-cpu', micros: (used.user + used.system) / CONSUMES });
    }
    if (message.type === 'result') {
      console.log(JSON.stringify(message.result));
      worker.kill();
      process.exit(0);
    }
  });
} else {
  const sequential = async (limiter: RateLimiterAbstract) => {
    for (let i = 0; i < CONSUMES / 10; i++) await limiter.consume(`caller-${i % 50}`);
    const started = process.hrtime.bigint();
    for (let i = 0; i < CONSUMES; i++) await limiter.consume(`caller-${i % 50}`);
    return Number(process.hrtime.bigint() - started) / CONSUMES / 1000;
  };
  const concurrent = async (limiter: RateLimiterAbstract) => {
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < CONSUMES) await limiter.consume(`caller-${next++ % 50}`);
      }),
    );
    const used = process.cpuUsage(cpu);
    return {
      wallMicros: Number(process.hrtime.bigint() - started) / CONSUMES / 1000,
      workerCpuMicros: (used.user + used.system) / CONSUMES,
    };
  };
  const options = { points: 1e9, duration: 60 };
  const memory = new RateLimiterMemory({ ...options, keyPrefix: 'memory' });
  const shared = new RateLimiterCluster({ ...options, keyPrefix: 'cluster', timeoutMs: 5000 });
  await new Promise((resolve) => setTimeout(resolve, 200)); // the master's 'init' answer
  const memorySequential = await sequential(memory);
  const memoryConcurrent = await concurrent(memory);
  const clusterSequential = await sequential(shared);
  // The primary's CPU over the same concurrent run: it starts and stops counting on our messages.
  process.send!({ type: 'measure-primary' });
  const clusterConcurrent = await concurrent(shared);
  const primaryCpu = new Promise<number>((resolve) => {
    const answer = (message: { type?: string; micros: number }) => {
      if (message.type !== 'primary-cpu') return;
      process.off('message', answer);
      resolve(message.micros);
    };
    process.on('message', answer);
  });
  process.send!({ type: 'measured' });
  const round = (value: number) => Number(value.toFixed(2));
  process.send!({
    type: 'result',
    result: {
      memorySequentialMicros: round(memorySequential),
      memoryWorkerCpuMicros: round(memoryConcurrent.workerCpuMicros),
      clusterSequentialMicros: round(clusterSequential),
      clusterWorkerCpuMicros: round(clusterConcurrent.workerCpuMicros),
      clusterPrimaryCpuMicros: round(await primaryCpu),
    },
  });
}
