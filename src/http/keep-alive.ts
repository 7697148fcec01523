import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Idle keep-alive connections close after HTTP_KEEP_ALIVE_TIMEOUT_SECONDS (plus Node's
 * `keepAliveTimeoutBuffer`, 1 s), but never with a request already waiting on them.
 *
 * Why: in each turn of its event loop Node runs due timers before it reads sockets. After a turn
 * longer than the margin between the client's reuse and the server's close (a long GC, a
 * starved CPU, or in the tests a client in the same process), a connection's idle timer fires
 * while the request its client sent in time still waits unread in the kernel. Node's default,
 * destroying the socket, then answers that request with a TCP reset: the client's
 * `read ECONNRESET` (nodejs/node#43456; the failures of `/metrics` on a busy machine, issue 21).
 *
 * With a `'timeout'` listener Node leaves the socket to us. We close it in the same turn, after
 * the sockets are read (setImmediate), unless a byte arrived in between: then a request has begun,
 * Node's own timers cover it (headers and request timeouts), and the idle timer starts again
 * after its answer. The server sets no `server.timeout`, so this listener only ever sees idle
 * keep-alive connections.
 */
export function closeIdleConnectionsAfterReads(server: Server): void {
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === read) socket.destroy();
    });
  });
}
