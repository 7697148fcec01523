import { ApolloClient, gql, HttpLink, InMemoryCache, type TypePolicies } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { filter, firstValueFrom } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { insertOrganizations } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/**
 * Apollo Client 4, as a frontend uses it, against the running service: Relay-style paging
 * merged by `relayStylePagination`, organizations and policies normalised by `id` (spec
 * section 10), `Coverage` kept as each policy's own snapshot.
 */
const CHILDREN = gql`
  query Children($id: ID!, $after: String) {
    organization(id: $id) {
      id
      name
      children(first: 20, after: $after) {
        edges { cursor node { id name } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`;

/**
 * A screen as a frontend builds it: an Apollo Client whose requests are noted by operation name
 * (to show that a mutation's answer, not a refetch, updated it), watching one query and keeping
 * every complete result it is shown, in order.
 */
function watchedScreen<Data>(url: string, token: string, typePolicies: TypePolicies) {
  const operations: string[] = [];
  const client = new ApolloClient({
    link: new HttpLink({
      uri: `${url}/graphql`,
      headers: { authorization: `Bearer ${token}` },
      fetch: (input, init) => {
        operations.push(JSON.parse(String(init?.body)).operationName);
        return fetch(input, init);
      },
    }),
    cache: new InMemoryCache({ typePolicies }),
  });
  const shownResults: Data[] = [];
  let watching: { unsubscribe(): void } | undefined;
  return {
    client,
    operations,
    watch(query: ReturnType<typeof gql>, variables: Record<string, unknown>) {
      watching = client.watchQuery<Data>({ query, variables }).subscribe((result) => {
        if (result.dataState === 'complete') shownResults.push(result.data);
      });
    },
    /** The first result shown that matches, waiting up to 10 s for it. */
    async nextShown(matches: (data: Data) => boolean): Promise<Data> {
      for (let waited = 0; waited < 10_000; waited += 10) {
        const found = shownResults.find(matches);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no such result among ${JSON.stringify(shownResults)}`);
    },
    stop() {
      watching?.unsubscribe();
      client.stop();
    },
  };
}

describe('Apollo Client 4 against the service', () => {
  const service = useTestService();
  let rootId: string;
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'apollo-user' });
    const root = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ name: 'Root' }) });
    rootId = root.body.id;
    await insertOrganizations(
      service,
      Array.from({ length: 45 }, (_, i) => ({ parentId: rootId, name: `child ${i + 1}`, ownerSub: 'apollo-user' })),
    );
  });

  it('pages through 45 children with fetchMore, merged by relayStylePagination into one list', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${service.url}/graphql`, headers: { authorization: `Bearer ${token}` } }),
      cache: new InMemoryCache({
        typePolicies: {
          Organization: { fields: { children: relayStylePagination() } },
          Coverage: { keyFields: false },
        },
      }),
    });
    type Data = {
      organization: {
        children: { edges: Array<{ node: { id: string; name: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } };
      };
    };
    const observable = client.watchQuery<Data>({ query: CHILDREN, variables: { id: rootId } });
    // Watched as a screen would; each fetchMore then merges into what it shows.
    let data = (await firstValueFrom(observable.pipe(filter((result) => result.dataState === 'complete')))).data;
    let pages = 1;
    while (data.organization.children.pageInfo.hasNextPage) {
      await observable.fetchMore({ variables: { after: data.organization.children.pageInfo.endCursor } });
      data = observable.getCurrentResult().data as Data;
      pages++;
      if (pages > 5) throw new Error('paging did not end');
    }
    const children = data.organization.children;
    expect(pages).toBe(3);
    expect(children.edges.map((edge: { node: { name: string } }) => edge.node.name)).toEqual(
      Array.from({ length: 45 }, (_, i) => `child ${i + 1}`),
    );
    expect(new Set(children.edges.map((edge: { node: { id: string } }) => edge.node.id)).size).toBe(45);
    // Normalised by id: the root is one cache entry.
    expect((client.cache.extract() as Record<string, unknown>)[`Organization:${rootId}`]).toMatchObject({ id: rootId, name: 'Root' });
    client.stop();
  });

  // Contract section 23: a search paged by fetchMore, its cursors (rank, then position) merged by relayStylePagination.
  it('pages a policy search with fetchMore, merged by relayStylePagination keyed by q: every match once, best first', async () => {
    const made: number[] = [];
    for (let i = 0; i < 25; i++) {
      const petName = i % 5 === 0 ? 'Wafles' : 'Waffles';
      const created = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: rootId, petName }),
      });
      expect(created.status).toBe(200);
      made.push(created.body.number);
    }
    const SEARCH = gql`
      query SearchPolicies($q: String!, $after: String) {
        viewer {
          searchPolicies(q: $q, first: 10, after: $after) {
            edges { cursor node { id number petName } }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          }
        }
      }
    `;
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${service.url}/graphql`, headers: { authorization: `Bearer ${token}` } }),
      cache: new InMemoryCache({
        typePolicies: { Viewer: { merge: true, fields: { searchPolicies: relayStylePagination(['q']) } }, Coverage: { keyFields: false } },
      }),
    });
    type Data = {
      viewer: {
        searchPolicies: {
          edges: Array<{ node: { id: string; number: number; petName: string } }>;
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
      };
    };
    const observable = client.watchQuery<Data>({ query: SEARCH, variables: { q: 'waffles' } });
    let data = (await firstValueFrom(observable.pipe(filter((result) => result.dataState === 'complete')))).data;
    let pages = 1;
    while (data.viewer.searchPolicies.pageInfo.hasNextPage) {
      await observable.fetchMore({ variables: { after: data.viewer.searchPolicies.pageInfo.endCursor } });
      data = observable.getCurrentResult().data as Data;
      if (++pages > 5) throw new Error('paging did not end');
    }
    expect(pages).toBe(3);
    const found = data.viewer.searchPolicies.edges.map((edge) => edge.node);
    // The exact name first, newest first; then the one-letter-off name, newest first.
    const exact = made.filter((_, i) => i % 5 !== 0).reverse();
    const near = made.filter((_, i) => i % 5 === 0).reverse();
    expect(found.map((policy) => policy.number)).toEqual([...exact, ...near]);
    expect(new Set(found.map((policy) => policy.id)).size).toBe(25);
    client.stop();
  });

  // Issue 23: the mutation answers the Policy, so the cache updates the screen without a refetch.
  it('cancels through cancelPolicy and sees status and cancellation change in the normalized cache, with no refetch', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({
        organizationId: rootId,
        effectiveDate: day(-40),
        expirationDate: day(320),
        coverageSlug: 'accident-illness-plus',
      }),
    });
    expect(created.status).toBe(200);
    const screen = watchedScreen<Data>(service.url, token, { Coverage: { keyFields: false } });
    const POLICY = gql`
      query PolicyStatus($number: SafeInt!) {
        policy(number: $number) { id number status cancellation { effectiveDate reason method credited fee } }
      }
    `;
    const CANCEL = gql`
      mutation CancelPolicy($number: SafeInt!, $input: CancelPolicyInput!) {
        cancelPolicy(number: $number, input: $input) { id status cancellation { effectiveDate reason method credited fee } }
      }
    `;
    type Data = {
      policy: {
        id: string;
        status: string;
        cancellation: { effectiveDate: string; reason: string; method: string; credited: number; fee: number } | null;
      };
    };
    // Watched as a screen would: every result the cache pushes is kept, in order.
    screen.watch(POLICY, { number: created.body.number });
    const before = await screen.nextShown(() => true);
    expect(before.policy).toMatchObject({ status: 'active', cancellation: null });
    await screen.client.mutate({
      mutation: CANCEL,
      variables: { number: created.body.number, input: { effectiveDate: day(0), reason: 'underwriting' } },
    });
    const shown = await screen.nextShown((data) => data.policy.status === 'cancelled');
    expect(shown.policy).toMatchObject({
      id: before.policy.id,
      status: 'cancelled',
      cancellation: { effectiveDate: day(0), reason: 'underwriting', method: 'pro_rata' },
    });
    expect(shown.policy.cancellation!.credited).toBeLessThan(0);
    expect(shown.policy.cancellation!.fee).toBe(0);
    // One query and one mutation: the cache, not a refetch, updated what the watcher shows.
    expect(screen.operations).toEqual(['PolicyStatus', 'CancelPolicy']);
    screen.stop();
  });
  // Issue 39: recordPayment answers the Policy, so the billing a screen shows moves with it, without a refetch.
  it('records a payment through recordPayment and sees billing and version change in the normalized cache, with no refetch', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({
        organizationId: rootId,
        effectiveDate: today,
        expirationDate: `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`,
      }),
    });
    expect(created.status).toBe(200);
    const screen = watchedScreen<Data>(service.url, token, { Coverage: { keyFields: false }, PolicyBilling: { keyFields: false } });
    const BILLING = gql`
      query PolicyBilling($number: SafeInt!) {
        policy(number: $number) { id version billing { billed paid balance status } }
      }
    `;
    const PAY = gql`
      mutation RecordPayment($number: SafeInt!, $input: RecordPaymentInput!) {
        recordPayment(number: $number, input: $input) { id version billing { billed paid balance status } }
      }
    `;
    type Data = { policy: { id: string; version: number; billing: { billed: number; paid: number; balance: number; status: string } } };
    screen.watch(BILLING, { number: created.body.number });
    const before = await screen.nextShown(() => true);
    expect(before.policy).toMatchObject({ version: 1, billing: { billed: 2900, paid: 0, balance: 2900, status: 'due' } });
    await screen.client.mutate({
      mutation: PAY,
      variables: { number: created.body.number, input: { amount: 2900, reference: 'apollo-pi-1' } },
    });
    const shown = await screen.nextShown((data) => data.policy.version === 2);
    expect(shown.policy).toEqual({
      __typename: 'Policy',
      id: before.policy.id,
      version: 2,
      billing: { __typename: 'PolicyBilling', billed: 2900, paid: 2900, balance: 0, status: 'settled' },
    });
    // One query and one mutation: the cache, not a refetch, updated what the watcher shows.
    expect(screen.operations).toEqual(['PolicyBilling', 'RecordPayment']);
    screen.stop();
  });
  // Issue 24: updateOrganization answers the Organization, normalized by id: the screen shows the change without a refetch.
  it('changes an organization through updateOrganization and sees every changed field in the normalized cache, with no refetch', async () => {
    const created = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ name: 'Before', email: 'old@example.com', address: { city: 'Springfield' } }),
    });
    expect(created.status).toBe(200);
    const screen = watchedScreen<Data>(service.url, token, {});
    const ORGANIZATION = gql`
      query OrganizationDetails($id: ID!) {
        organization(id: $id) { id version name email address { city } }
      }
    `;
    const UPDATE = gql`
      mutation UpdateOrganization($id: ID!, $input: UpdateOrganizationInput!, $ifVersion: Int) {
        updateOrganization(id: $id, input: $input, ifVersion: $ifVersion) { id version name email address { city } }
      }
    `;
    type Data = {
      organization: { id: string; version: number; name: string; email: string | null; address: { city: string | null } | null };
    };
    screen.watch(ORGANIZATION, { id: created.body.id });
    const before = await screen.nextShown(() => true);
    expect(before.organization).toMatchObject({ version: 1, name: 'Before', email: 'old@example.com', address: { city: 'Springfield' } });
    await screen.client.mutate({
      mutation: UPDATE,
      variables: { id: created.body.id, input: { name: 'After', email: null, address: { city: 'Shelbyville' } }, ifVersion: 1 },
    });
    const shown = await screen.nextShown((data) => data.organization.version === 2);
    expect(shown.organization).toEqual({
      __typename: 'Organization',
      id: created.body.id,
      version: 2,
      name: 'After',
      email: null,
      address: { __typename: 'Address', city: 'Shelbyville' },
    });
    // One query and one mutation: the cache, not a refetch, updated what the watcher shows.
    expect(screen.operations).toEqual(['OrganizationDetails', 'UpdateOrganization']);
    screen.stop();
  });
});
