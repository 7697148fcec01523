import { keyShownOnce } from '../../api-keys/api-key.writes.js';
import type {
  ApiKeyQuery,
  ApiKeysQuery,
  CreateApiKeyMutation,
  RevokeApiKeyMutation,
  RotateApiKeyMutation,
} from '../generated/operations.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { API_KEY_EXAMPLE } from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import { API_KEY, API_KEYS, CREATE_API_KEY, REVOKE_API_KEY, ROTATE_API_KEY } from '../operations.js';
import { organizationIdParameter, singleParameter } from '../query-parameters.js';
import { del, get, post, type RestRoute } from '../route-entry.js';

const NO_KEY = problem('No such unrevoked key, or the caller may not access it');

/** API keys (contract section 20). A create's or rotation's key is shown once: a retry of one that happened is 409 (keyShownOnce). */
export const API_KEY_ROUTES: RestRoute[] = [
  post<CreateApiKeyMutation>({
    path: '/api/v1/api-keys',
    document: CREATE_API_KEY,
    bodyVariable: 'input',
    closedBody: true,
    showsSecretOnce: true,
    rebuild: (_context, created) => Promise.reject(keyShownOnce((created as { id: string }).id)),
    response: (data) => data.createApiKey,
    doc: {
      operationId: 'createApiKey',
      summary: 'Make an API key for an organization; the key is shown only in this answer',
      tag: 'API keys',
      body: { schema: 'CreateApiKeyRequest', examples: { typical: API_KEY_EXAMPLE } },
      answer: { description: 'Created', schema: 'ApiKeyCreated', derive: [] },
      errors: {
        404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
        409: problem(
          'A request with the same Idempotency-Key is still running, or already made its key: the key was shown once and is stored nowhere, so the problem names the key to revoke (code CONFLICT)',
        ),
      },
    },
  }),
  get<ApiKeysQuery>({
    path: '/api/v1/api-keys',
    document: API_KEYS,
    query: [organizationIdParameter('Default: the token’s org'), ...PAGE_PARAMETERS],
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.apiKeys),
    doc: {
      operationId: 'listApiKeys',
      summary: "List an organization's unrevoked API keys (never the keys themselves)",
      tag: 'API keys',
      answer: { description: 'A page', list: 'ApiKeyList', schema: 'ApiKey' },
      errors: { 404: problem('`organizationId` (or the token’s org) names no organization the caller may access') },
    },
  }),
  get<ApiKeyQuery>({
    path: '/api/v1/api-keys/:id',
    document: API_KEY,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.apiKey,
    doc: {
      operationId: 'getApiKey',
      summary: 'Read an API key (never the key itself)',
      tag: 'API keys',
      answer: { description: 'Found', schema: 'ApiKey', derive: [] },
      errors: { 404: NO_KEY },
    },
  }),
  del<RevokeApiKeyMutation>({
    path: '/api/v1/api-keys/:id',
    document: REVOKE_API_KEY,
    variables: ({ params }) => ({ id: params.id }),
    doc: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key: every instance refuses it within 2 seconds',
      tag: 'API keys',
      answer: { description: 'Revoked' },
      errors: { 404: NO_KEY },
    },
  }),
  post<RotateApiKeyMutation>({
    path: '/api/v1/api-keys/:id/rotation',
    document: ROTATE_API_KEY,
    bodyVariable: 'input',
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    showsSecretOnce: true,
    rebuild: (_context, created) => Promise.reject(keyShownOnce((created as { id: string }).id)),
    response: (data) => data.rotateApiKey,
    doc: {
      operationId: 'rotateApiKey',
      summary: 'A new key in place of this one (same name, organization, scopes and lifetime); the old one works for `graceSeconds` more',
      tag: 'API keys',
      body: { schema: 'RotateApiKeyRequest', description: '`{}` for a day of grace', examples: { typical: { graceSeconds: 3600 } } },
      answer: { description: 'Rotated: the new key', schema: 'ApiKeyCreated' },
      errors: {
        404: problem('No such unrevoked, unexpired key, or the caller may not access it'),
        409: problem('A request with the same Idempotency-Key is still running, or already rotated the key (code CONFLICT)'),
      },
    },
  }),
];
