import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { apiKeyHashesOf } from './auth/api-key-hashes.js';
import { verificationKeys } from './auth/verification-keys.js';
import type { Config } from './config.js';
import type { EmbeddedDatabase } from './database/embedded-postgres.js';
import { Database } from './database/database.js';
import { ReadReplicas } from './database/replicas.js';
import { shareWrites } from './database/shared-writes.js';
import { developmentSecret } from './development-secrets.js';
import { deleteExpiredKeys } from './idempotency/idempotency.js';
import { treeLimitSettings } from './limits/tree-depth.js';
import { FieldCipher } from './crypto/field-cipher.js';
import { RequestFingerprints } from './crypto/request-fingerprint.js';
import { deliverySuperviseSeconds, startDelivery } from './webhooks/delivery.js';
import { startJobQueue } from './jobs/job-queue.js';
import { startBillingSweep } from './policies/billing-sweep.js';
import { startAuditSealer } from './audit/audit-sealer.js';
import { countPastDue } from './policies/billing-notice.js';
import { ServiceMetrics } from './observability/metrics.js';
import { traceStatements } from './database/statement-spans.js';
import { coreSettings } from './service-core.js';
import { serviceUrl } from './welcome.js';

export interface RunningService {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  server: Server;
  /** The process's pool and SQL gateway. */
  database: Database;
  databaseUrl: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** OpenTelemetry was started before the service's modules loaded (main.ts). */
  traced?: boolean;
  /**
   * A node:cluster worker: `/metrics` answers for every worker, through the primary, and a
   * caller's write keeps its reads on the primary on every worker (the replicas' sticky window).
   */
  clusterWorker?: boolean;
}

/**
 * config -> database (embedded unless DATABASE_URL) -> migrations -> app -> listening. The
 * migrator (MikroORM, knex) is loaded only to migrate: a worker that does not loads neither.
 */
export async function startService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  // Loaded only when used: production (DATABASE_URL) never runs the embedded server's code.
  const embedded: EmbeddedDatabase | undefined = config.databaseUrl
    ? undefined
    : await (await import('./database/embedded-postgres.js')).startEmbeddedPostgres(config.dataDir, logger, { ownProcessGroup: true });
  const databaseUrl = config.databaseUrl || embedded?.url;
  if (!databaseUrl) throw new Error('no database: neither DATABASE_URL nor the embedded server');
  let database: Database | undefined;
  let replicas: ReadReplicas | undefined;
  try {
    // On connections of its own, without the statement timeout (migrate.ts).
    if (config.migrateOnStart) await (await import('./database/migrate.js')).migrateDatabase(databaseUrl, logger);
    // The statement timeout and the startup options the quota and depth triggers read.
    const connection = {
      statementTimeoutMs: config.limits.statementTimeoutSeconds * 1000,
      options: treeLimitSettings(config.limits),
      preparedStatements: config.database.preparedStatements,
      logger,
    };
    database = new Database({ url: databaseUrl, ...connection });
    const open = database;
    const metrics = new ServiceMetrics({ cluster: options.clusterWorker ?? false });
    // Reads of read operations go to a healthy replica when there is one (contract section 17).
    replicas = new ReadReplicas(
      open,
      {
        urls: config.database.replicaUrls,
        maxLagSeconds: config.database.replicaMaxLagSeconds,
        stickySeconds: config.database.replicaStickySeconds,
        connection,
        logger,
        shareWrite: options.clusterWorker ? shareWrites((sub, at) => replicas?.remember(sub, at)) : undefined,
      },
      (target) => metrics.observeRead(target),
    );
    // A server that does not talk to the service as configured stops the start (a pooler in front, settings missing).
    await Promise.all([open.verify(), replicas.verify()]);
    await replicas.start();
    const reads = replicas;
    metrics.watchReplicas(() => reads.status());
    const dataKey = config.dataEncryptionKey ?? developmentSecret(config.dataDir, 'data-encryption-key');
    const cipher = new FieldCipher(dataKey, config.previousDataEncryptionKeys);
    // The one pool: requests, rate limits, idempotency keys, the webhook worker's and the billing sweep's own SQL share it.
    metrics.watchPool('service', () => open.poolState());
    metrics.watchStatements(() => open.statementsSent);
    // As the last billing sweep saw them, on whichever instance it ran (policy_billing_notice).
    metrics.watchPastDue(() => countPastDue(open));
    // Every statement of a sampled request gets a span.
    if (options.traced) traceStatements(database.name);
    const { server, drain, apollo, outage } = await createApp({
      database,
      replicas,
      verifyToken: createTokenVerifier(verificationKeys(config)),
      cipher,
      fingerprints: new RequestFingerprints(dataKey, config.previousDataEncryptionKeys),
      apiKeyHashes: apiKeyHashesOf(config, dataKey),
      logger,
      ...coreSettings(config),
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      metrics,
      metricsToken: config.metricsToken,
      metricsOperationNames: config.metricsOperationNames,
      traced: options.traced ?? false,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    // The job queue (pg-boss), one per process, when this instance runs webhook delivery or takes
    // part in the billing sweep (docs/decisions.md, "The billing sweep").
    const sweepSeconds = config.policyRules.billingSweepSeconds;
    const jobs =
      config.webhooks.delivery || sweepSeconds > 0
        ? await startJobQueue({ database, databaseUrl, logger, metrics, superviseSeconds: deliverySuperviseSeconds(config.webhooks) })
        : null;
    // Webhook delivery (spec section 11): the relay, the workers and the retention of events.
    const delivery =
      jobs && config.webhooks.delivery ? await startDelivery({ database, jobs, settings: config.webhooks, cipher, logger, metrics }) : null;
    // Contract section 19: past due and lapse, at start and every BILLING_SWEEP_SECONDS, once across instances.
    const sweep =
      jobs && sweepSeconds > 0
        ? await startBillingSweep({
            database,
            jobs,
            rules: config.policyRules,
            logger,
            observe: (entry) => metrics.observeLedger(entry),
          })
        : null;
    // Contract section 21: the audit log's entries sealed into their trees' chains within seconds, and its retention.
    const sealer =
      config.audit.sealSeconds > 0
        ? startAuditSealer({ database, logger, sealSeconds: config.audit.sealSeconds, retentionDays: config.audit.retentionDays })
        : null;
    // Kept responses past their retention are ignored at once and deleted here, now and then.
    const cleanUp = () =>
      deleteExpiredKeys(open)
        .then((count) => count > 0 && logger.info({ count }, 'deleted expired idempotency keys'))
        .catch((error) => logger.warn({ err: error }, 'could not delete expired idempotency keys'));
    void cleanUp();
    const cleaner = setInterval(() => void cleanUp(), 10 * 60_000).unref();
    const { port } = server.address() as { port: number };
    return {
      url: serviceUrl(config.host, port),
      server,
      database,
      databaseUrl,
      /** Stop accepting, let in-flight requests finish (7 s at most), then close the database. */
      async stop() {
        clearInterval(cleaner);
        await drain(7_000);
        // Refusals for a lost database since its last line are logged before the process goes.
        outage.flush();
        await apollo.stop();
        // An attempt, or a sweep, cut here is run again by another instance, or after the restart.
        await delivery?.stop().catch((error) => logger.warn({ err: error }, 'webhook delivery did not stop cleanly'));
        await sweep?.stop().catch((error) => logger.warn({ err: error }, 'the billing sweep did not stop cleanly'));
        await sealer?.stop();
        await jobs?.stop().catch((error) => logger.warn({ err: error }, 'the job queue did not stop cleanly'));
        await reads.close();
        await open.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await replicas?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
