import { badUserInput } from '../../errors/errors.js';
import type {
  CreateOrganizationMutation,
  OrganizationQuery,
  OrganizationsQuery,
  UpdateOrganizationMutation,
} from '../generated/operations.js';
import { ifMatchVersion } from '../if-match.js';
import { flattenAddress } from '../input-from-body.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { ORGANIZATION_EXAMPLE, ORGANIZATION_PATCH_EXAMPLE } from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import { CREATE_ORGANIZATION, ORGANIZATION, ORGANIZATIONS, UPDATE_ORGANIZATION } from '../operations.js';
import { organizationIdParameter, refuseAlongside, SEARCH_PARAMETER, singleParameter } from '../query-parameters.js';
import { get, patch, post, type RestRoute } from '../route-entry.js';

/** An organization's id in the path. */
const organizationId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: 'Organization id',
};

/** Organizations (contract sections 4, 10 and 15). */
export const ORGANIZATION_ROUTES: RestRoute[] = [
  post<CreateOrganizationMutation>({
    path: '/api/v1/organization',
    document: CREATE_ORGANIZATION,
    bodyVariable: 'input',
    etag: true,
    response: ({ createOrganization: organization }) => organizationBody(organization),
    doc: {
      operationId: 'createOrganization',
      summary: 'Create an organization with its address, bank accounts and owners (all or nothing)',
      tag: 'Organizations',
      body: {
        schema: 'CreateOrganizationRequest',
        description:
          'Strings at most 255 characters (description 2,000, descriptor 22); required strings not blank; email valid; ' +
          'logo and website absolute http(s) URLs; phone 7–20 of digits, spaces and +-(). ; at most 10 bank accounts and ' +
          '25 owners whose ownership adds up to at most 100. Unknown properties are accepted and ignored (the interface document allows them).',
        examples: { typical: ORGANIZATION_EXAMPLE },
      },
      answer: { description: 'Created', schema: 'OrganizationCreated', derive: [] },
      errors: {
        400: problem(
          'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`); among them, `parentId` (or the token’s org) already at ORGANIZATION_MAX_DEPTH levels',
        ),
        403: problem(
          'The organization tree already has its quota of organizations, or (a root) the caller its quota of root organizations (ORGANIZATION_ROOTS_PER_SUB, default 25); code QUOTA_EXCEEDED',
        ),
        404: problem('`parentId` (or the token’s org) names no organization the caller may access'),
        409: problem('A request with the same Idempotency-Key is still running'),
      },
    },
  }),
  get<OrganizationsQuery>({
    path: '/api/v1/organization',
    document: ORGANIZATIONS,
    query: [
      { name: 'parentId', schema: { type: 'string', format: 'uuid' }, description: 'List its children' },
      SEARCH_PARAMETER,
      organizationIdParameter('With `q`: search only this organization and its descendants'),
      ...PAGE_PARAMETERS,
    ],
    // Without parentId, the caller's entry points; with it (even empty: then 404), its children.
    // With q, a search (contract section 23) of the caller's reach or of organizationId's subtree.
    variables: ({ query }) => {
      const parentId = singleParameter(query, 'parentId');
      const q = singleParameter(query, 'q');
      const scope = singleParameter(query, 'organizationId');
      if (q !== undefined) refuseAlongside(query, ['parentId'], 'q, which searches every organization the caller may see');
      else if (scope !== undefined)
        throw badUserInput([{ path: 'organizationId', message: 'is for a search (with q); parentId lists children' }]);
      const [search, children] = [q !== undefined, q === undefined && parentId !== undefined];
      return {
        children,
        entries: !search && !children,
        search,
        parentId: parentId ?? '',
        q: q ?? '',
        scope: scope ?? null,
        ...pageVariables(query),
      };
    },
    response: (data) => {
      const page = listBody((data.organization?.children ?? data.viewer?.organizations ?? data.found?.searchOrganizations)!);
      return { ...page, data: page.data.map(organizationBody) };
    },
    doc: {
      operationId: 'listOrganizations',
      summary: 'List organizations: the children of parentId, or without it where the caller starts; or search them',
      description:
        'Without `parentId`: the organizations the caller may access whose parent it may not (a sub-only token finds the ' +
        'roots it created here). Oldest first, a page at a time: pass `nextCursor` as `after` while `hasMore`. With `q`: a search ' +
        'by legalName (typos forgiven) of every organization the caller may access, or of `organizationId`’s subtree, best ' +
        'match first, then newest (`parentId` cannot be combined with it).',
      tag: 'Organizations',
      answer: { description: 'A page', list: 'OrganizationList', schema: 'Organization' },
      errors: { 404: problem('`parentId` names no organization the caller may access') },
    },
  }),
  get<OrganizationQuery>({
    path: '/api/v1/organization/:id',
    document: ORGANIZATION,
    etag: true,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.organization && organizationBody(data.organization),
    doc: {
      operationId: 'getOrganization',
      summary: 'Read an organization the caller may access',
      tag: 'Organizations',
      pathParameter: organizationId,
      answer: { description: 'Found', schema: 'Organization', derive: [] },
      errors: { 404: problem('No such organization, or the caller may not access it') },
    },
  }),
  // Contract sections 15 and 18: a merge patch; an unknown field is 400 with a "did you mean" (closed), as a typo is the whole change.
  patch<UpdateOrganizationMutation>({
    path: '/api/v1/organization/:id',
    document: UPDATE_ORGANIZATION,
    bodyVariable: 'input',
    etag: true,
    closedBody: true,
    refusedFields: {
      id: 'cannot be changed: the organization is the one in the path',
      parentId: 'cannot be changed: an organization stays under the parent it was created under',
    },
    pathVariables: (params) => ({ id: params.id }),
    headerVariables: (request) => ({ ifVersion: ifMatchVersion(request.header('if-match')) }),
    response: ({ updateOrganization: organization }) => organizationBody(organization),
    doc: {
      operationId: 'updateOrganization',
      summary: 'Change an organization: a JSON merge patch (RFC 7396), guarded by If-Match',
      description:
        'The body is a merge patch of the create’s fields (see UpdateOrganizationRequest), sent as `application/merge-patch+json` ' +
        'or `application/json`. Answers the organization as the create does, with its new `version` (also the `ETag`). A patch that ' +
        'changes nothing answers 200 with the same version and records nothing; any other records an `organization.updated` ' +
        'event with `previousAttributes` (the changed fields’ earlier values, masked as reads mask them). Bank account numbers ' +
        'and owner tax ids sent are stored encrypted, answered as last fours.',
      tag: 'Organizations',
      pathParameter: organizationId,
      body: {
        schema: 'UpdateOrganizationRequest',
        rules: { not: { anyOf: [{ required: ['id'] }, { required: ['parentId'] }] } },
        description:
          'A JSON merge patch (RFC 7396) of the create’s fields: an absent field is kept, null removes an optional one (`name` goes back to ' +
          '`legalName`; `legalName`, `legalType` and `taxId` cannot be removed), `address` is merged property by property (null removes ' +
          'a property), `bankAccounts` and `owners` are replaced whole (null or [] removes them all). `id` and `parentId` are refused ' +
          '(400 naming them). The result follows every rule of the create, all errors listed at once. Any other unknown property, at ' +
          'the top or in a bank account or an owner, is 400 (`is not a field of this request`, with a "did you mean" when a field is ' +
          'within two edits): a misspelt field would otherwise answer 200 and change nothing. An address keeps every property.',
        examples: { typical: ORGANIZATION_PATCH_EXAMPLE },
      },
      answer: { description: 'Changed (or nothing to change)', schema: 'OrganizationCreated' },
      errors: {
        400: problem(
          'The body is not valid JSON, not an object, or the organization it would make breaks the rules (all listed in `errors`, at most 100); `id` or `parentId` sent is listed by name, any other unknown field as `is not a field of this request` (with a "did you mean" when one is within two edits)',
        ),
        404: problem('No such organization, or the caller may not access it'),
        409: problem('A request with the same Idempotency-Key is still running'),
        412: problem(
          'If-Match names another version than the organization’s, or is malformed (code PRECONDITION_FAILED); nothing was written',
        ),
        415: problem('The body is neither application/merge-patch+json nor application/json, or not UTF-8'),
      },
    },
  }),
];

/** An organization as REST answers it (create, change, read, list item): addresses flat, as REST clients send them. */
function organizationBody(organization: CreateOrganizationMutation['createOrganization']) {
  return {
    ...organization,
    address: flattenAddress(organization.address),
    owners: organization.owners.map((owner) => ({ ...owner, address: flattenAddress(owner.address) })),
  };
}
