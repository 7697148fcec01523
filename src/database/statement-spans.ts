import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { summarizeStatement, type StatementSummary } from './statement-summary.js';

const tracer = trace.getTracer('org-policy-service');

/**
 * One span per SQL statement, in the trace of the work that sent it, made where the service's
 * statements go (database.ts, the one gateway) rather than by patching `pg` (OpenTelemetry's pg
 * instrumentation wrapped every query of every pool, traced or not: docs/benchmark.md).
 * Statements sent outside a sampled piece of work (an unsampled request, the webhook relay's
 * polling) get none, at the cost of one check. The SQL is recorded without its values:
 * placeholders stay, literals become `?`. Until this is called (tracing off), no statement is
 * traced. pg-boss's own statements, on its own pool, are not the service's: they get none.
 */
export function traceStatements(database: string): void {
  tracedDatabase = database;
}

/** A statement sent by the gateway (database.ts), inside its span when its work is traced. */
export async function inStatementSpan<T>(sql: string, run: () => Promise<T>): Promise<T> {
  const span = startStatementSpan(sql);
  if (!span) return run();
  try {
    return await run();
  } catch (error) {
    failed(span, error as { code?: unknown });
    throw error;
  } finally {
    span.end();
  }
}

/** The database's name once traceStatements ran: until then (tracing off) no statement is traced. */
let tracedDatabase: string | undefined;

function startStatementSpan(sql: string): Span | undefined {
  const database = tracedDatabase;
  // Only inside a sampled piece of work: an unsampled request's statements cost this check.
  if (database === undefined || !trace.getActiveSpan()?.isRecording()) return undefined;
  const { operation, collection, text } = described(sql);
  const attributes: Attributes = { 'db.system.name': 'postgresql', 'db.namespace': database, 'db.query.text': text };
  if (operation) attributes['db.operation.name'] = operation;
  if (collection) attributes['db.collection.name'] = collection;
  // The conventions' name: `{db.operation.name} {target}`, the target being the table when the
  // statement names one (`SELECT policy`), else the database (`BEGIN postgres`).
  return tracer.startSpan(operation ? `${operation} ${collection ?? database}` : database, { kind: SpanKind.CLIENT, attributes });
}

function failed(span: Span, error: { code?: unknown }): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  // PostgreSQL's SQLSTATE (23505, 57014, ...), as the conventions' db.response.status_code.
  if (typeof error.code === 'string') span.setAttribute('db.response.status_code', error.code);
}

/**
 * A statement's operation and main table (database/statement-summary.ts) and its text without
 * literals, kept: the service's statements are a few dozen texts of up to a kilobyte. A text
 * built with a literal in it would make them unbounded: a full cache starts again empty.
 */
interface Description extends StatementSummary {
  text: string;
}
const descriptions = new Map<string, Description>();
const DESCRIPTIONS_KEPT = 500;

function described(sql: string): Description {
  let description = descriptions.get(sql);
  if (!description) {
    description = { ...summarizeStatement(sql), text: withoutLiterals(sql) };
    if (descriptions.size >= DESCRIPTIONS_KEPT) descriptions.clear();
    descriptions.set(sql, description);
  }
  return description;
}

/**
 * SQL with every literal replaced by `?`, as OpenTelemetry's conventions ask of `db.query.text`:
 * quoted strings (with `''` inside), and numbers that are not part of a name or a `$n`.
 */
export function withoutLiterals(sql: string): string {
  return sql.replace(/(?:[eE])?'(?:[^']|'')*'/g, '?').replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?![\w.])/g, '?');
}
