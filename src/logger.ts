import { DriverException } from '@mikro-orm/core';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

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

/**
 * Errors from the database are logged by what they are, never by their text: MikroORM puts
 * the statement, values inlined (a tax id, a kept answer), into a DriverException's message and
 * stack, and PostgreSQL quotes values in some messages (`invalid input syntax ... "..."`).
 */
export function serializeError(error: unknown): unknown {
  const fields = error as { name?: string; code?: string; sqlState?: string; constraint?: string; table?: string; routine?: string; stack?: string };
  if (!(error instanceof DriverException) && !(error instanceof Error && typeof fields.routine === 'string')) {
    return error instanceof Error ? stdSerializers.err(error) : error;
  }
  return {
    type: fields.name,
    code: fields.code ?? fields.sqlState,
    constraint: fields.constraint,
    table: fields.table,
    routine: fields.routine,
    // The frames only: the first line of a stack is the message.
    stack: fields.stack?.split('\n').slice(1).join('\n'),
  };
}

/** JSON lines to stdout (or `destination`, which the tests use to read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { err: serializeError } };
  return destination ? pino(options, destination) : pino(options);
}
