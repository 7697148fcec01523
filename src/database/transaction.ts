import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `work` in a transaction on a fork of `em`, committed when it resolves and rolled back
 * when it throws: `em.transactional` without its AsyncLocalStorage. MikroORM's `transactional`
 * runs its callback inside an AsyncLocalStorage (so that a global entity manager finds the
 * transaction), and on Node 20 the first use of any AsyncLocalStorage turns on a hook for every
 * promise of the process, for good: after one create, every read paid 13-17% more CPU
 * (docs/benchmark.md). The work here always uses the entity manager it is given.
 */
export async function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const fork = em.fork({ clear: false });
  await fork.begin();
  try {
    const result = await work(fork);
    await fork.commit();
    return result;
  } catch (error) {
    await fork.rollback();
    throw error;
  }
}
