import { context, createContextKey, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { OperationDefinitionNode } from 'graphql';

const tracer = trace.getTracer('org-policy-service');

/** The span of the operation Apollo Server is running, in the context of its work. */
const APOLLO_OPERATION = createContextKey('org-policy-service graphql operation span');

/**
 * The span of one GraphQL operation, named and labelled as OpenTelemetry's GraphQL conventions
 * say (`query Policy`, graphql.operation.type and .name), with the operation's SQL beneath it.
 * Prepared documents (a REST route's, a trusted one) know their operation before they run;
 * Apollo Server's learn it once Apollo has parsed the document (inApolloOperationSpan). Only
 * inside a sampled request: this is on every request's path.
 */
export function inOperationSpan<T extends { errors?: readonly unknown[] }>(
  operation: OperationDefinitionNode,
  run: () => Promise<T>,
): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const span = tracer.startSpan(operation.operation);
  named(span, operation);
  return inSpan(span, context.active(), run, (result) => Boolean(result.errors?.length));
}

/**
 * An operation run by Apollo Server: the span starts before Apollo reads the document, under
 * the conventions' name for an operation not yet known, `GraphQL Operation`, and is named by
 * nameApolloOperation when Apollo has resolved it.
 */
export function inApolloOperationSpan<T>(run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const span = tracer.startSpan('GraphQL Operation');
  return inSpan(span, context.active().setValue(APOLLO_OPERATION, span), run, () => false);
}

/** From Apollo's didResolveOperation: the operation's span gets the operation's name. */
export function nameApolloOperation(operation: OperationDefinitionNode): void {
  const span = context.active().getValue(APOLLO_OPERATION) as Span | undefined;
  if (span) named(span, operation);
}

/** From Apollo's didEncounterErrors: the operation answered errors (a prepared one's are in its result). */
export function apolloOperationFailed(): void {
  (context.active().getValue(APOLLO_OPERATION) as Span | undefined)?.setStatus({ code: SpanStatusCode.ERROR });
}

function named(span: Span, { operation, name }: OperationDefinitionNode): void {
  span.updateName(name ? `${operation} ${name.value}` : operation);
  span.setAttribute('graphql.operation.type', operation);
  if (name) span.setAttribute('graphql.operation.name', name.value);
}

/** `run` with `span` active; the span ends when it settles, as an error if it throws or `failed` says so. */
async function inSpan<T>(span: Span, parent: Context, run: () => Promise<T>, failed: (result: T) => boolean): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(parent, span), run);
    if (failed(result)) span.setStatus({ code: SpanStatusCode.ERROR });
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
