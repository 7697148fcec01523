import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';
import { nodeFloorProblem } from '../../src/node-floor.js';

/**
 * One real PostgreSQL for the whole run (the service's own embedded one, in a fresh temporary
 * directory), or DATABASE_URL when set. Each test file makes its own database on it.
 */
export default async function setup(project: TestProject) {
  // The suite proves the service on the Node it runs on: never on one older than the floor.
  const tooOld = nodeFloorProblem(process.version);
  if (tooOld) throw new Error(tooOld);
  if (process.env.DATABASE_URL) {
    project.provide('databaseAdminUrl', process.env.DATABASE_URL);
    return;
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-test-'));
  const database = await startEmbeddedPostgres(dataDir, createLogger('silent'));
  project.provide('databaseAdminUrl', database.url);
  return async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseAdminUrl: string;
  }
}
