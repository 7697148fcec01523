import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { expect } from 'vitest';
import { openApiChecker } from './openapi.js';

/** A response as the tests read it: status, headers and the parsed JSON body (or text). */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Who the suite's requests go to: a started service over HTTP, or the operation core in process (in-process.ts). */
export interface Client {
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  token(claims: { sub: string; org?: string }): Promise<string>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What a request of the suite sends besides its method and path: the caller's headers, an Accept
 * on `/graphql` as GraphQL clients send it, the token, and a body as JSON text.
 */
export function outgoing(path: string, options: RequestOptions): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { ...options.headers };
  // As GraphQL clients send it today (Apollo Client 4, graphql-http): the status then tells a
  // refused request from an answered one. test/graphql/graphql-statuses covers application/json.
  if (path.toLowerCase().startsWith('/graphql') && !Object.keys(headers).some((name) => name.toLowerCase() === 'accept')) {
    headers.accept = 'application/graphql-response+json, application/json;q=0.9';
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return { headers, body };
}

/** A response body as the tests read it: parsed JSON, or the text when it is not JSON. */
export function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: keep the text
  }
}

/** Plain HTTP against the running server, as an integrator's client would send it. */
export async function request(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
  const { headers, body } = outgoing(path, options);
  const response = await fetch(new URL(path, baseUrl), { method, headers, body });
  const text = await response.text();
  const result = { status: response.status, headers: response.headers, body: parsedBody(text), text };
  // Every REST response the suite sees must match the served OpenAPI document.
  if (path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json') (await openApiChecker(baseUrl))(method, path, result);
  return result;
}

/** A GraphQL POST to /graphql. */
export function graphql(baseUrl: string, query: string, variables: Record<string, unknown> = {}, token?: string) {
  return request(baseUrl, 'POST', '/graphql', { token, body: { query, variables } });
}

/** Registers a webhook endpoint for `url` on an organization, through GraphQL. */
export function createWebhookEndpoint(baseUrl: string, token: string, organizationId: string, url: string) {
  return graphql(
    baseUrl,
    'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id } }',
    { input: { organizationId, url } },
    token,
  );
}

/** A typed document (generated from test/operations by `npm run codegen`) sent to /graphql. */
export function execute<Result, Variables>(
  baseUrl: string,
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  token?: string,
): Promise<TestResponse<{ data?: Result | null; errors?: Array<{ message: string; extensions: Record<string, any> }> }>> {
  return request(baseUrl, 'POST', '/graphql', { token, body: { query: print(document), variables } });
}

/** An RFC 9457 problem of this status and code (contract section 6), with its title and detail. */
export function expectProblem(response: TestResponse, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.detail).toBe('string');
}
