import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Graceful stop for the HTTP server: stop accepting, let every request that reached us finish
 * with its normal answer, then close. `http.Server.close()` (and Apollo's drain plugin, built
 * on it) closes "idle" connections at once, and a connection accepted a moment earlier whose
 * request is not parsed yet counts as idle: its client gets ECONNRESET for a request it did
 * send. So: stop listening first, give such connections a moment, then close idle ones.
 */
export function drainable(server: HttpServer) {
  let draining = false;
  return {
    /** During a drain, answers say `Connection: close`, so keep-alive clients reconnect elsewhere. */
    draining: () => draining,
    async drain(graceMillis: number): Promise<void> {
      draining = true;
      // net.Server's close stops listening without http.Server's closing of idle connections.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      await sleep(250);
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const finished = await Promise.race([closed.then(() => true), sleep(graceMillis).then(() => false)]);
      clearInterval(sweep);
      if (!finished) server.closeAllConnections();
      await closed;
    },
  };
}
