import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { WebhookSettings } from '../config.js';
import { traceHeaders } from '../observability/trace-context.js';
import { attemptErrorOf, ResponsePrefix, TIMEOUT_CODE } from './attempt-log.js';
import type { Outcome } from './delivery-next-state.js';
import { checkedLookup, literalUrlProblem } from './webhook-url.js';

/**
 * The one network step of a delivery: a signed POST to the receiver and what it answered, apart
 * from the queue and the database (delivery-attempt.ts calls it, delivery-record.ts writes what
 * it returns), with the agents that keep connections between attempts.
 */

/** At most this much of a receiver's answer is read (64 KB; contract section 12). */
export const RESPONSE_READ_LIMIT = 64 * 1024;

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Connections are kept open between attempts to the same host (a new TCP and TLS handshake per
 * event cost more than the event); a kept connection was checked by the lookup when it opened.
 * Destroyed by delivery.ts when the workers stop.
 */
export function deliveryAgents(settings: WebhookSettings): Agents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: settings.concurrency, timeout: 30_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets: settings.concurrency, timeout: 30_000 }),
  };
}

/** A delivery's headers, signed as Standard Webhooks asks, with the delivery span's W3C trace context when tracing is on (spec section 13). */
function signedHeaders(eventId: string, body: string, secrets: readonly string[]): http.OutgoingHttpHeaders {
  const timestamp = new Date();
  // Space-separated signatures, each `v1,<base64>`: a receiver accepts the delivery when one verifies (two during a rotation's grace).
  const signature = secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body)).join(' ');
  return {
    ...traceHeaders(),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'user-agent': 'org-policy-service-webhooks',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * One POST, signed as Standard Webhooks asks; no redirects followed (node's http never does),
 * a time limit, and in production a connection only to a public address (the lookup refuses
 * others; an address literal is checked here, since it skips the lookup). The outcome carries
 * what the attempt log keeps (attempt-log.ts): the status and the answer's first 4 KB, or the
 * class of the error that left no answer. `timeLimitMs`: the attempt's time limit, less when a rate
 * limit's send was claimed before (delivery-attempt.ts): the whole send must end within it.
 */
export function post(
  url: string,
  eventId: string,
  body: string,
  secrets: readonly string[],
  settings: WebhookSettings,
  agents: Agents,
  timeLimitMs = settings.timeoutSeconds * 1000,
): Promise<Outcome> {
  const target = new URL(url);
  const policy = { publicOnly: settings.publicUrlsOnly };
  const problem = literalUrlProblem(target, policy);
  if (problem) return Promise.resolve({ error: `the URL ${problem}`, errorClass: 'refused_address' });
  const send = target.protocol === 'https:' ? https.request : http.request;
  const agent = target.protocol === 'https:' ? agents.https : agents.http;
  return new Promise((resolve) => {
    // The first of an answer's end, the read limit or an error settles the attempt; the status
    // and the body's first bytes are kept from the moment they arrive (an error after the
    // status, a timeout while the body trickles in, keeps both).
    let status: number | undefined;
    const kept = new ResponsePrefix();
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      resolve({
        ...(status !== undefined ? { status, body: kept.text() } : {}),
        ...(error ? { error: error.message.slice(0, 200), errorClass: attemptErrorOf(error) } : {}),
      });
    };
    const request = send(
      target,
      {
        method: 'POST',
        agent,
        lookup: checkedLookup(policy),
        timeout: Math.max(1, timeLimitMs),
        headers: signedHeaders(eventId, body, secrets),
      },
      (response) => {
        // The status decides the attempt; the body is read only up to RESPONSE_READ_LIMIT (its
        // first RESPONSE_BODY_KEPT bytes kept for the attempt log), then the connection is closed
        // rather than drained: a receiver cannot make the service read an unbounded answer
        // (security review 2, L9).
        status = response.statusCode;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          kept.add(chunk);
          read += chunk.length;
          if (read > RESPONSE_READ_LIMIT) {
            settle();
            request.destroy();
          }
        });
        response.on('end', () => settle());
        response.on('error', (error) => settle(error));
      },
    );
    // A whole-attempt limit: the socket timeout alone restarts with every byte received.
    const timedOut = () =>
      request.destroy(Object.assign(new Error(`no answer within ${settings.timeoutSeconds} s`), { code: TIMEOUT_CODE }));
    const deadline = setTimeout(timedOut, Math.max(0, timeLimitMs));
    request.on('timeout', timedOut);
    request.on('error', (error) => settle(error));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
