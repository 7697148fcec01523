import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** One registry's series as `getMetricsAsJSON()` gives them, what `AggregatorRegistry.aggregate` takes. */
type Metric = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/**
 * `/metrics` under node:cluster (WEB_CONCURRENCY > 1): a scrape lands on one worker but must
 * report the whole instance. The primary serves no HTTP, so the worker that got the scrape asks
 * it over IPC; the primary collects every listening worker's registry (`getMetricsAsJSON`) and
 * answers with prom-client's `AggregatorRegistry.aggregate` of them. Each series is combined by
 * its `aggregator`: a sum by default (requests, latency buckets, pools, CPU, memory), as
 * prom-client sets for its defaults (event-loop lag averaged, versions taken once), and as
 * metrics.ts sets otherwise (the webhook queue's depth, the same on every worker: the maximum).
 *
 * Not prom-client's `clusterMetrics()`: it asks every connected worker, and one still starting
 * (no registry yet) or dying mid-scrape leaves it waiting 5 s and failing. Here a worker is asked
 * once it listens (its registry exists by then), one that exits is answered for as gone, and one
 * that does not answer in time fails the scrape rather than make the instance's counters drop.
 */
const SCRAPE = 'org-policy:metrics-scrape';
const SCRAPED = 'org-policy:metrics-scraped';
const COLLECT = 'org-policy:metrics-collect';
const COLLECTED = 'org-policy:metrics-collected';

/** How long the primary waits for a worker's registry. */
const COLLECT_TIMEOUT_MS = 5_000;
/** How long a worker waits for the primary's answer: the collection and the round trip. */
const SCRAPE_TIMEOUT_MS = 7_000;

type Message =
  | { type: typeof SCRAPE; id: number }
  | { type: typeof SCRAPED; id: number; text?: string; error?: string }
  | { type: typeof COLLECT; id: number }
  | { type: typeof COLLECTED; id: number; metrics?: Metric[]; error?: string };

/**
 * In a worker: answers the primary's collections with `registry`, and returns the scrape of the
 * whole instance (asked of the primary).
 */
export function instanceScrape(registry: Registry): () => Promise<string> {
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  const send = (message: Message) => process.send?.(message);
  process.on('message', (message: Message) => {
    if (message?.type === COLLECT) {
      registry.getMetricsAsJSON().then(
        (metrics) => send({ type: COLLECTED, id: message.id, metrics }),
        (error: Error) => send({ type: COLLECTED, id: message.id, error: error.message }),
      );
    } else if (message?.type === SCRAPED) {
      const scrape = waiting.get(message.id);
      if (!scrape) return;
      waiting.delete(message.id);
      clearTimeout(scrape.timer);
      if (message.text !== undefined) scrape.resolve(message.text);
      else scrape.reject(new Error(`cluster metrics: ${message.error}`));
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, SCRAPE_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      send({ type: SCRAPE, id });
    });
}

/** In the primary: answers the workers' scrapes with every listening worker's series, aggregated. */
export function answerScrapes(): void {
  const listening = new Set<Worker>();
  /** Collections in flight: settled with the worker's series, or with nothing if it exits. */
  const collections = new Map<number, { worker: Worker; settle: (metrics: Metric[] | undefined, error?: string) => void }>();
  let next = 0;

  const collect = (worker: Worker) =>
    new Promise<Metric[] | undefined>((resolve, reject) => {
      // Disconnected, it is on its way out (and a send would fail).
      if (!worker.isConnected()) return resolve(undefined);
      const id = next++;
      const timer = setTimeout(() => settle(undefined, `worker ${worker.process.pid} did not answer`), COLLECT_TIMEOUT_MS);
      const settle = (metrics: Metric[] | undefined, error?: string) => {
        clearTimeout(timer);
        collections.delete(id);
        if (error) reject(new Error(error));
        else resolve(metrics);
      };
      collections.set(id, { worker, settle });
      worker.send({ type: COLLECT, id } satisfies Message);
    });

  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('disconnect', (worker) => listening.delete(worker));
  cluster.on('exit', (worker) => {
    listening.delete(worker);
    // Gone with its counts: the scrape reports the workers that remain.
    for (const collection of collections.values()) if (collection.worker === worker) collection.settle(undefined);
  });
  cluster.on('message', (worker, message: Message) => {
    if (message?.type === COLLECTED) {
      collections.get(message.id)?.settle(message.metrics, message.error);
    } else if (message?.type === SCRAPE) {
      const answer = (fields: { text?: string; error?: string }) => {
        if (worker.isConnected()) worker.send({ type: SCRAPED, id: message.id, ...fields } satisfies Message);
      };
      Promise.all([...listening].map(collect))
        .then((registries) => AggregatorRegistry.aggregate(registries.filter((metrics) => metrics !== undefined)).metrics())
        .then(
          (text) => answer({ text }),
          (error: Error) => answer({ error: error.message }),
        );
    }
  });
}
