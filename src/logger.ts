import { DriverException } from '@mikro-orm/core';
import { trace } from '@opentelemetry/api';
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { PinoPretty } from 'pino-pretty';

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
  const fields = error as {
    name?: string;
    code?: string;
    sqlState?: string;
    constraint?: string;
    table?: string;
    routine?: string;
    stack?: string;
  };
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

export type LogFormat = 'json' | 'pretty';

export interface LoggerSettings {
  /** JSON lines (the default), or one readable line per entry for a developer's terminal. */
  format?: LogFormat;
  /** With tracing on, each line carries the trace and span ids of the work it was logged in. */
  traceIds?: boolean;
  /** Where lines go instead of stdout (the tests read what was logged). */
  destination?: DestinationStream;
}

/** pino, redacting secrets (section 6), as JSON lines or pretty lines (spec section 13). */
export function createLogger(level: string, settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = { level, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { err: serializeError } };
  if (settings.traceIds) options.mixin = traceIds;
  const destination = settings.destination ?? (settings.format === 'pretty' ? prettyLines() : undefined);
  return destination ? pino(options, destination) : pino(options);
}

/** The active span's ids (OpenTelemetry keeps the active span per asynchronous context). */
function traceIds(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/**
 * pino-pretty in the process (synchronously: a development terminal, not a production sink),
 * with an access line read as `POST /graphql 200 GetPolicy NOT_FOUND 8 ms`.
 */
function prettyLines(): DestinationStream {
  return PinoPretty({
    sync: true,
    colorize: process.stdout.isTTY,
    ignore: 'pid,hostname,req,res,route,responseTime,operationName,operationType,codes',
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: (log, messageKey) => {
      const req = log.req as { method?: string; url?: string } | undefined;
      const res = log.res as { statusCode?: number } | undefined;
      if (!req?.method || !res) return String(log[messageKey]);
      const operation = [log.operationName, ...((log.codes as string[] | undefined) ?? [])].filter(Boolean).join(' ');
      return `${req.method} ${req.url} ${res.statusCode}${operation ? ` ${operation}` : ''} ${log.responseTime} ms`;
    },
  });
}
