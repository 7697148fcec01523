import { loadConfig } from '../src/config.js';
import { migrateDatabase } from '../src/database/migrate.js';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (production deploys). */
const config = loadConfig();
if (!config.databaseUrl) {
  console.error('npm run migrate needs DATABASE_URL (the embedded database migrates at start).');
  process.exit(1);
}
const applied = await migrateDatabase(config.databaseUrl);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply');
