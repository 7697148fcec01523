import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * `/metrics` under node:cluster (WEB_CONCURRENCY > 1): a scrape lands on one worker but must
 * report the whole instance. The primary serves no HTTP, so the worker that got the scrape asks
 * it over IPC; the primary gathers every worker's registry with prom-client's
 * `AggregatorRegistry.clusterMetrics()` and answers with the aggregated text. Each series is
 * combined by its `aggregator`: sums by default (requests, latency buckets, pools, CPU, memory),
 * as set by prom-client for its defaults (event loop lag averaged, versions taken once), and as
 * set in metrics.ts otherwise (the webhook queue's depth, the same on every worker: its maximum).
 */
const SCRAPE = 'org-policy:metrics-scrape';
const SCRAPED = 'org-policy:metrics-scraped';

/** prom-client gives up on a worker that does not answer after 5 s; this covers the round trip. */
const SCRAPE_TIMEOUT_MS = 7_000;

interface ScrapeRequest {
  type: typeof SCRAPE;
  id: number;
}

interface ScrapeAnswer {
  type: typeof SCRAPED;
  id: number;
  text?: string;
  error?: string;
}

/**
 * In a worker: makes `registry` the one the primary collects from this process, and returns
 * the scrape of the whole instance (asked of the primary).
 */
export function instanceScrape(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes this worker answer the primary's collection requests.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on('message', (message: ScrapeAnswer) => {
    const scrape = message?.type === SCRAPED ? waiting.get(message.id) : undefined;
    if (!scrape) return;
    waiting.delete(message.id);
    clearTimeout(scrape.timer);
    if (message.text !== undefined) scrape.resolve(message.text);
    else scrape.reject(new Error(`cluster metrics: ${message.error}`));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, SCRAPE_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      process.send!({ type: SCRAPE, id } satisfies ScrapeRequest);
    });
}

/** In the primary: answers the workers' scrape requests with every worker's series, aggregated. */
export function answerScrapes(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: ScrapeRequest) => {
    if (message?.type !== SCRAPE) return;
    const answer = (fields: Pick<ScrapeAnswer, 'text' | 'error'>) => {
      if (worker.isConnected()) worker.send({ type: SCRAPED, id: message.id, ...fields } satisfies ScrapeAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}
