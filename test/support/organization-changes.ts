import { expect } from 'vitest';
import { organizationBody } from './fixtures.js';
import type { Client } from './http.js';
import type { TestService } from './test-service.js';

/**
 * Changing organizations (contract section 15) in tests, on a started service or in process:
 * an organization with every kind of field, and what a test reads of its changes.
 */
export const ACCOUNT = '000111222333444';
export const NEW_ACCOUNT = '999888777666555';
export const OWNER_TAX_ID = '987-65-4321';
export const NEW_OWNER_TAX_ID = '555-44-3322';
export const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

export const fullOrganization = () =>
  organizationBody({
    name: 'Paws',
    email: 'billing@paws.example',
    phone: '+1 413 555 0100',
    description: 'A pet shop',
    address: { line1: '1 Main St', city: 'Springfield', suite: '4B', floor: { number: 3 } },
    bankAccounts: [
      { nickname: 'operating', routing: '110000000', account: ACCOUNT },
      { routing: '110000001', account: '1234567890' },
    ],
    owners: [{ firstname: 'Ada', lastname: 'L', taxId: OWNER_TAX_ID, ownership: 60, address: { city: 'Boston' } }],
  });

/** Creates and patches organizations on `service` as the caller of `token()`, and reads their rows and `organization.updated` events. */
export function organizationChanges(service: Client & Pick<TestService, 'sql'>, token: () => string) {
  return {
    async create(body: Record<string, unknown> = fullOrganization()) {
      const created = await service.request('POST', '/api/v1/organization', { token: token(), body });
      expect(created.status, created.text).toBe(200);
      return created.body as Record<string, any>;
    },
    patch: (id: string, body: unknown, headers: Record<string, string> = MERGE_PATCH, as = token()) =>
      service.request('PATCH', `/api/v1/organization/${id}`, { token: as, body, headers }),
    updatedEvents: (id: string) =>
      service.sql<{ data: { object: Record<string, any>; previousAttributes: Record<string, any> } }>(
        "select data from event where type = 'organization.updated' and organization_id = $1 order by created_at, id",
        [id],
      ),
    async rowOf(id: string) {
      const [organization] = await service.sql('select * from organization where id = $1', [id]);
      const accounts = await service.sql('select * from bank_account where organization_id = $1 order by position', [id]);
      const owners = await service.sql('select * from owner where organization_id = $1 order by position', [id]);
      return { organization, accounts, owners };
    },
  };
}
