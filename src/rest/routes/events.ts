import type { EventQuery, EventsQuery } from '../generated/operations.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { problem } from '../openapi-parts.js';
import { EVENT, EVENTS } from '../operations.js';
import { listParameter, organizationIdParameter, singleParameter } from '../query-parameters.js';
import { get, type RestRoute } from '../route-entry.js';

/** Events, each with the state of its deliveries (contract section 11). A redelivery is a webhook's step: routes/webhooks.ts. */
export const EVENT_ROUTES: RestRoute[] = [
  get<EventsQuery>({
    path: '/api/v1/events',
    document: EVENTS,
    query: [
      organizationIdParameter("Only this organization's subtree"),
      // One parameter, comma-separated: `type=a&type=b` is a parameter given twice (400), not a list.
      { name: 'type', schema: { type: 'string' }, description: 'Comma-separated event types, e.g. `policy.created`' },
      ...PAGE_PARAMETERS,
    ],
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      types: listParameter(query, 'type'),
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.events),
    doc: {
      operationId: 'listEvents',
      summary: 'List the events the caller may access, oldest first, each with the state of its deliveries',
      description:
        'With `organizationId`, the events of that organization and every descendant. Pass `nextCursor` as `after` while `hasMore`. ' +
        'Each event carries `actor` (`{ sub }` of the caller whose request made it) and `apiVersion`, and its `deliveries` (at most 25, to endpoints the caller may access) as `GET /api/v1/events/{id}` shows them.',
      tag: 'Events',
      answer: { description: 'A page', list: 'EventList', schema: 'EventListItem', derive: ['edges', 'node'] },
      errors: { 404: problem('`organizationId` names no organization the caller may access') },
    },
  }),
  get<EventQuery>({
    path: '/api/v1/events/:id',
    document: EVENT,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.event,
    doc: {
      operationId: 'getEvent',
      summary: 'Read an event with the state of its deliveries',
      tag: 'Events',
      answer: { description: 'Found', schema: 'Event', derive: [] },
      errors: { 404: problem('No such event, or the caller may not access it') },
    },
  }),
];
