import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths removed from every log line. Tokens travel in `authorization`; card and account data
 * must never reach logs even when an error object carries a request body (PCI-style care).
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  '*.cvc',
  '*.account',
  '*.taxId',
  '*.*.cvc',
  '*.*.account',
  '*.*.taxId',
  'body',
  'variables',
];

/** JSON lines to stdout (or `destination`, which the tests use to read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
