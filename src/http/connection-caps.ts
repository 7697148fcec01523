import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Contract section 12, "Connections": at most `perAddress` open connections per client address;
 * the next one is closed at once. `server.maxConnections` protects the process's file
 * descriptors, but alone it is one pool for everyone: a single client holding it locked every
 * other client out (security review 2, M1). The address is the socket's remote address at
 * connection time, counted under `keyOf` (an IPv6 client by its /64, as the rate limits count
 * it): behind a proxy, the proxy's, since X-Forwarded-For is not read yet and a client could
 * choose it.
 *
 * A connection that never completes its first request needs nothing here: Node's
 * `headersTimeout`, checked every `connectionsCheckingInterval`, counts from the connection's
 * start and answers it 408 (request-bounds.test.ts pins this).
 */
export function capConnectionsPerAddress(server: Server, perAddress: number, keyOf: (address: string | undefined) => string): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = keyOf(socket.remoteAddress);
    const count = open.get(key) ?? 0;
    if (count >= perAddress) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
