import { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/test-service.js';

/**
 * The database's log lines carry their text as the message (issue 25, F4): a terminal's pretty
 * line reads `INFO: [migrator] Applied ...`, where it read `INFO: undefined` with the text in a
 * field of its own. Migrations run for real on a fresh database, through the service's settings.
 */
describe('database log lines', () => {
  const capture = () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
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
});
