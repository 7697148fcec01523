import { startEmbeddedPostgres } from './src/database/embedded-postgres.js';
import { createLogger } from './src/logger.js';
const db = await startEmbeddedPostgres(process.argv[2], createLogger('warn'), { port: 55432 });
console.log(db.url);
process.on('SIGTERM', async () => { await db.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
