import { pino, type Logger } from 'pino';

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
