import { Field, ID, Int, ObjectType } from 'type-graphql';
import { graphqlEnum } from '../graphql/graphql-enum.js';
import { ATTEMPT_ERRORS, type AttemptError } from './attempt-log.js';

export const WebhookAttemptErrorEnum = graphqlEnum(ATTEMPT_ERRORS, {
  name: 'WebhookAttemptError',
  description: 'Why an attempt got no answer, or its answer broke off (contract section 22)',
  values: {
    timeout: 'No whole answer within the time limit (WEBHOOK_TIMEOUT_SECONDS)',
    connection_refused: 'No connection could be opened: refused, or the host or network unreachable',
    connection_reset: 'The connection was broken by the other side',
    dns: 'The host name did not resolve',
    tls: 'The TLS handshake failed (a certificate not trusted, expired, or for another name, ...)',
    refused_address: 'The URL policy refused it: an address that is not public, or not https (production)',
  },
});

/** One POST of a delivery to its endpoint, as the attempt log keeps it (contract section 22). */
@ObjectType('WebhookAttempt', { simpleResolvers: true })
export class WebhookAttempt {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  eventId!: string;

  @Field(() => ID)
  deliveryId!: string;

  @Field(() => Int, { description: "The delivery's attempt it was: 1 for the first" })
  attempt!: number;

  @Field(() => String, { description: 'RFC 3339: when the POST began' })
  startedAt!: string;

  @Field(() => Int, { description: 'Milliseconds from the POST to its answer, or to the error that ended it' })
  durationMs!: number;

  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status; null when no answer came" })
  responseStatus!: number | null;

  @Field(() => WebhookAttemptErrorEnum, {
    nullable: true,
    description:
      "Why no answer came, or why it broke off; null when it came whole, or for an error of none of these classes (the delivery's lastError has its message)",
  })
  error!: AttemptError | null;

  @Field(() => String, {
    nullable: true,
    description: 'The first 4 KB (4,096 bytes, cut on a UTF-8 boundary) of the answer as text; null when no answer came',
  })
  responseBody!: string | null;
}
