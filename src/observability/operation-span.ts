import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { OperationDefinitionNode } from 'graphql';

const tracer = trace.getTracer('org-policy-service');

/**
 * Runs a prepared document (a REST route's or a trusted one) inside the span OpenTelemetry's
 * GraphQL instrumentation makes for an operation Apollo executes, named and labelled the same
 * (`query Policy`, graphql.operation.*): graphql-jit does not go through graphql-js's `execute`,
 * which that instrumentation patches. Without a span to hang it under (tracing off: no HTTP
 * span) nothing is made: this is on every prepared request's path.
 */
export function inOperationSpan<T>(operation: OperationDefinitionNode, run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()) return run();
  const name = operation.name?.value;
  const attributes = name ? { 'graphql.operation.type': operation.operation, 'graphql.operation.name': name } : { 'graphql.operation.type': operation.operation };
  return tracer.startActiveSpan(name ? `${operation.operation} ${name}` : operation.operation, { attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
