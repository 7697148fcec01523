import type { Logger } from 'pino';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ormSettings } from './src/database/orm-settings.js';
import { BankAccount } from './src/organizations/bank-account.entity.js';
import { Organization } from './src/organizations/organization.entity.js';
import { Owner } from './src/organizations/owner.entity.js';
import { Charge } from './src/policies/charge.entity.js';
import { CoveragePlan } from './src/policies/coverage-plan.entity.js';
import { Policy } from './src/policies/policy.entity.js';
import { PolicyTransaction } from './src/policies/policy-transaction.entity.js';
import { PolicyPayment } from './src/policies/policy-payment.entity.js';
import { Quote } from './src/quotes/quote.entity.js';

/**
 * The MikroORM configuration with the entities: for the MikroORM CLI and the tests that read the
 * entities' metadata (the service and its scripts migrate without entities, migrate.ts). Its
 * settings (connection, migrations, logging) are src/database/orm-settings.ts.
 */
export function ormConfig(clientUrl: string, logger?: Logger): Options {
  return defineConfig({
    ...ormSettings(clientUrl, logger),
    entities: [Organization, Owner, BankAccount, Policy, PolicyTransaction, PolicyPayment, Charge, CoveragePlan, Quote],
    // Entities are listed, never discovered from files: the same under tsx, vitest and node.
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://localhost/postgres');
