import { MikroORM, type MetadataStorage } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';

/**
 * The entities' metadata (tables, columns, relations) as MikroORM discovers it from the entity
 * classes, without connecting: the service no longer opens MikroORM, the tests that compare the
 * entities with the migrated database or with the write maps read it here.
 */
export async function entityMetadata(): Promise<MetadataStorage> {
  const orm = await MikroORM.init({ ...ormConfig('postgres://localhost/unused'), connect: false });
  try {
    return orm.getMetadata();
  } finally {
    await orm.close();
  }
}
