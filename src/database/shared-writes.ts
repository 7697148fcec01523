import cluster from 'node:cluster';

/**
 * The read replicas' sticky window across the workers of one instance (WEB_CONCURRENCY > 1,
 * contract section 17: "its own last write on this instance"). Each worker keeps the window in
 * memory, and the next request of a caller who just wrote may land on another worker. So a
 * worker that answers a write first tells the primary, which passes it to every other worker and
 * then says so; the write's answer waits for that. The primary hands each new connection to a
 * worker over the same channel, after the news it passed on, so the caller's next request finds
 * its worker told. A primary that does not answer within a second costs the window, never the
 * write's answer.
 */
const WROTE = 'org-policy:replicas-wrote';
const PASSED_ON = 'org-policy:replicas-passed-on';
const PASS_ON_TIMEOUT_MS = 1_000;

type Message = { type: typeof WROTE; id?: number; sub: string; at: number } | { type: typeof PASSED_ON; id: number };

/**
 * In a worker: `remember` is told of the other workers' writes; the function returned tells them
 * of this worker's, resolving once they have been sent it.
 */
export function shareWrites(remember: (sub: string, at: number) => void): (sub: string, at: number) => Promise<void> {
  const waiting = new Map<number, () => void>();
  let next = 0;
  process.on('message', (message: Message) => {
    if (message?.type === WROTE) remember(message.sub, message.at);
    else if (message?.type === PASSED_ON) waiting.get(message.id)?.();
  });
  return (sub, at) =>
    new Promise<void>((resolve) => {
      const id = next++;
      const done = () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, PASS_ON_TIMEOUT_MS);
      waiting.set(id, done);
      process.send?.({ type: WROTE, id, sub, at } satisfies Message);
    });
}

/** In the primary: passes each worker's write on to every other worker, then answers the writer. */
export function passOnWrites(): void {
  cluster.on('message', (from, message: Message) => {
    if (message?.type !== WROTE || message.id === undefined) return;
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker && worker !== from && worker.isConnected())
        worker.send({ type: WROTE, sub: message.sub, at: message.at } satisfies Message);
    }
    if (from.isConnected()) from.send({ type: PASSED_ON, id: message.id } satisfies Message);
  });
}
