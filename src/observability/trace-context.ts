import { context, propagation } from '@opentelemetry/api';

/**
 * The active span's W3C trace context as headers (`traceparent`, and `tracestate` when there is
 * one); nothing when tracing is off. Kept with an event, and sent with its webhook deliveries.
 */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
