import 'reflect-metadata';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/database/orm.js';
import { ormConfig } from '../mikro-orm.config.js';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (production deploys). */
const config = loadConfig();
if (!config.databaseUrl) {
  console.error('npm run migrate needs DATABASE_URL (the embedded database migrates at start).');
  process.exit(1);
}
const orm = await openDatabase(ormConfig(config.databaseUrl), { migrate: false });
const applied = await orm.getMigrator().up();
console.log(applied.length ? `applied: ${applied.map((m) => m.name).join(', ')}` : 'nothing to apply');
await orm.close();
