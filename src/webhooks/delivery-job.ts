/**
 * The delivery queue's name and what one of its jobs carries. Apart, because three files make or
 * take these jobs (delivery-relay.ts enqueues first attempts, delivery-record.ts the next ones,
 * delivery-slots.ts fetches them) and none of them should import another for it.
 */
export const QUEUE = 'webhook-delivery';

export interface Job {
  deliveryId: string;
  /** The attempt this job makes (1-based): a stale duplicate finds the count moved on. */
  attempt: number;
}
