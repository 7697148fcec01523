import { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { Database } from '../../src/database/database.js';
import { createTestDatabase } from '../support/test-service.js';

/**
 * The database's log lines carry their text as the message (issue 25, F4): a terminal's pretty
 * line reads `INFO: [migrator] Applied ...`, where it read `INFO: undefined` with the text in a
 * field of its own. Migrations run for real on a fresh database, through the service's settings.
 */
describe('database log lines', () => {
  const capture = (level = 'info') => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger(level, { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    return { lines, logger };
  };

  it('say what the migrator did in their message', async () => {
    const { lines, logger } = capture();
    const orm = await MikroORM.init({
      ...ormSettings(await createTestDatabase(), logger),
      entities: [],
      discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
    });
    try {
      await orm.getMigrator().up();
    } finally {
      await orm.close();
    }
    const migrator = lines.filter((line) => String(line.msg).startsWith('[migrator] '));
    expect(migrator.length).toBeGreaterThan(1);
    expect(migrator.some((line) => /\[migrator\] Applied/.test(String(line.msg)))).toBe(true);
    expect(lines.filter((line) => typeof line.msg !== 'string' || line.msg === 'undefined')).toEqual([]);
  });

  it("say the driver's warnings and errors in their message too", () => {
    const { lines, logger } = capture();
    const log = (
      ormSettings('postgres://localhost/none', logger).driverOptions as { log: Record<'warn' | 'error', (message: unknown) => void> }
    ).log;
    log.warn('Connection Error: connect ECONNREFUSED 127.0.0.1:5432');
    log.error(new Error('pool exhausted'));
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 40, msg: '[database] Connection Error: connect ECONNREFUSED 127.0.0.1:5432' },
      { level: 50, msg: '[database] pool exhausted' },
    ]);
  });

  it('say each statement of the gateway at debug level, its text and never its values', async () => {
    const url = await createTestDatabase();
    for (const level of ['debug', 'info']) {
      const { lines, logger } = capture(level);
      const database = new Database({ url, logger });
      try {
        await database.query('select ? as "taxId"', ['123-45-6789']);
        await database.query('select 1/0').catch(() => undefined);
      } finally {
        await database.close();
      }
      const statements = lines.filter((line) => String(line.msg).startsWith('[query] '));
      if (level === 'info') {
        expect(statements).toEqual([]);
        continue;
      }
      expect(statements.map(({ level, msg }) => ({ level, msg: String(msg).replace(/\d+ ms/, 'N ms') }))).toEqual([
        { level: 20, msg: '[query] select $1 as "taxId" [took N ms]' },
        { level: 20, msg: '[query] select 1/0 [took N ms, failed 22012]' },
      ]);
      expect(JSON.stringify(lines)).not.toContain('123-45-6789');
    }
  });
});
