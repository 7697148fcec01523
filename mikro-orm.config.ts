import type { Logger } from 'pino';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ormSettings, type ConnectionSettings } from './src/database/orm-settings.js';
import { BankAccount } from './src/organizations/bank-account.entity.js';
import { Organization } from './src/organizations/organization.entity.js';
import { Owner } from './src/organizations/owner.entity.js';
import { Charge } from './src/policies/charge.entity.js';
import { CoveragePlan } from './src/policies/coverage-plan.entity.js';
import { Policy } from './src/policies/policy.entity.js';
import { PolicyTransaction } from './src/policies/policy-transaction.entity.js';
import { Quote } from './src/quotes/quote.entity.js';

export type { ConnectionSettings };

/**
 * The one MikroORM configuration: the service, `npm run migrate` and the tests use it. Its
 * settings (connection, pool, migrations, logging) are src/database/orm-settings.ts; this adds
 * the entities.
 */
export function ormConfig(clientUrl: string, logger?: Logger, settings: ConnectionSettings = {}): Options {
  return defineConfig({
    ...ormSettings(clientUrl, logger, settings),
    entities: [Organization, Owner, BankAccount, Policy, PolicyTransaction, Charge, CoveragePlan, Quote],
    // Entities are listed, never discovered from files: the same under tsx, vitest and node.
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://localhost/postgres');
