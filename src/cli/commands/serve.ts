import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { untilStopped } from '../context.js';
import type { CliRuntime } from '../runtime.js';
import type { ServerStore } from '../../store/ports/index.js';

export default async function serve(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ host: string; port: string; db?: string; pool?: string; worker: boolean; logLevel: string; allowPrivateWebhooks?: boolean; webhookLeaseMs?: string; dbAnswerTimeoutMs: string; analysisWorkers?: string; analysisBudgetMs: string; analysisMemoryMb: string }>();
  const port = Number(o.port);
  const analysisLimits = parseAnalysisLimits(o);
  const leaseMs = (await import('../../store/open.js')).parseLeaseMs(o.webhookLeaseMs);
  if (!/^\d+$/.test(o.port) || port > 65_535)
    throw new VerityError('VALIDATION_FAILED', `--port must be 0 to 65535, got "${o.port}"`, { details: [{ field: 'port', issue: '0 to 65535' }] });
  const [{ openStore }, { buildServer }, { createServerEngines }, { startServer }, { acquireServeLock, databaseTarget, parsePoolSize, parseAnswerTimeoutMs, openPostgres, sqliteServerStore }] =
    await Promise.all([
      import('../../store/local/database.js'),
      import('../../server/app.js'),
      import('../../server/engines.js'),
      import('../../server/serve.js'),
      import('../../store/open.js'),
    ]);
  const target = databaseTarget(o.db, rt.ctx.env, rt.ctx.paths.storeFile);
  const poolSize = parsePoolSize(o.pool);
  const answerTimeoutMs = parseAnswerTimeoutMs(o.dbAnswerTimeoutMs);
  // SQLite: one serve per file — the lock is taken before the store is opened, so a second serve
  // on the same file does not even migrate it. PostgreSQL: any number of processes.
  const lock = target.kind === 'sqlite' ? acquireServeLock(target.path) : undefined;
  // The SQLite file: the server's store on SQLite; on PostgreSQL, only the engines' local data
  // (corpus, registry, media index) in the embedded store.
  let file: Awaited<ReturnType<typeof openStore>>;
  let serverStore: ServerStore;
  try {
    file = await openStore(target.kind === 'sqlite' ? target.path : rt.ctx.paths.storeFile);
  } catch (err) {
    lock?.release();
    throw err;
  }
  try {
    if (target.kind === 'postgres')
      serverStore = await openPostgres(target.url, {
        poolSize,
        answerTimeoutMs,
        onBackgroundError: (err) => void rt.ctx.stderr.write(`serve: background database write failed: ${err instanceof Error ? err.message : String(err)}\n`),
      });
    else serverStore = sqliteServerStore(file.db);
  } catch (err) {
    file.close();
    lock?.release();
    throw err;
  }
  // Listening for SIGTERM before the ready line is written: a supervisor (or a test) may stop the
  // server the moment it reads that line, and must get a graceful stop, not the default kill.
  const stopped = untilStopped(rt.ctx);
  // A stray rejection is logged and serving goes on; an uncaught exception is logged, then exits.
  const removeSafetyNet = (await import('../process-safety-net.js')).installProcessSafetyNet({ name: 'serve', write: (line) => void rt.ctx.stderr.write(line) });
  let closeAnalysis = async (): Promise<void> => undefined;
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    const claim = rt.config().claim;
    const nli = claim?.stance === 'nli' ? (await import('../../engine/claim/nli/configured.js')).configuredNliClassifier(rt.ctx.paths.dataDir, claim.nli_model) : undefined;
    const analysis = await startAnalysisPool(rt, analysisLimits, target.kind === 'sqlite' ? target.path : rt.ctx.paths.storeFile);
    closeAnalysis = () => analysis.close();
    const engines = createServerEngines({ config: rt.engineConfig(), store: file, cacheDir: rt.ctx.paths.cacheDir, clock: rt.ctx.clock, analysis, ...(nli ? { nli } : {}) });
    const allowPrivate = o.allowPrivateWebhooks === true;
    const webhooks = (await import('../../server/webhook-routes.js')).webhookServerHooks({
      store: serverStore,
      clock: rt.ctx.clock,
      targetPolicy: { allowPrivate },
      ...(leaseMs !== undefined ? { leaseMs } : {}),
    });
    // The event stream (issue 29): its routes beside the webhooks', on the same store and outbox.
    const stream = (await import('../../server/event-stream-routes.js')).eventStreamPlugin({
      store: serverStore,
      clock: rt.ctx.clock,
      onError: (err) => void rt.ctx.stderr.write(`serve: event stream: ${err instanceof Error ? err.message : String(err)}\n`),
    });
    // Streamed batches' files wait in the data folder until their items run.
    const batchSpoolDir = (await import('node:path')).join(rt.ctx.paths.dataDir, 'batch-spool');
    const app = await buildServer({
      store: serverStore,
      engines,
      clock: rt.ctx.clock,
      logLevel: o.logLevel,
      logStream: rt.ctx.stderr,
      batchSpoolDir,
      ...webhooks,
      plugins: [...webhooks.plugins, stream.plugin],
    });
    // Its young generation grows once it answers many small requests (young-generation.ts).
    (await import('../young-generation.js')).growOnRequestRate(app.server);
    if (allowPrivate)
      app.log.warn(
        { allow_private_webhooks: true },
        'webhook targets are NOT guarded (--allow-private-webhooks): any key holder can make this server send requests to http, loopback and private addresses; use for development only',
      );
    if (target.kind === 'postgres') app.log.info({ store: serverStore.label, pool: poolSize, worker: o.worker !== false }, 'using PostgreSQL');
    else {
      // New databases are created 0600 (store/local/private-file.ts); an older or copied one may not be.
      const exposed = (await import('../../store/local/private-file.js')).exposedFiles(target.path);
      if (exposed.length)
        app.log.warn(
          { files: exposed },
          `the database files are open to other users (${exposed.map((f) => `${f.path} ${f.mode}`).join(', ')}); they hold webhook secrets: chmod 600 ${exposed.map((f) => f.path).join(' ')}`,
        );
    }
    running = await startServer(app, {
      // Without the worker (PostgreSQL, --no-worker), separate `verity worker` processes deliver.
      background: o.worker === false && target.kind === 'postgres' ? undefined : webhooks.background,
      host: o.host,
      port,
      // The server store first (its deferred writes), then the SQLite file (checkpoint, close).
      store: { close: async () => void (await closeAnalysis(), await serverStore.close(), file.close()) },
      // The ready line is a protocol line for scripts and tests, so it is written even with --quiet.
      announce: (line) => void rt.ctx.stderr.write(`${line}\n`),
    });
  } catch (err) {
    await closeAnalysis();
    await serverStore.close().catch(() => undefined);
    file.close();
    lock?.release();
    removeSafetyNet();
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      const { message, hint } = (await import('../port-holder.js')).portInUse(o.host, port);
      throw new VerityError('UNAVAILABLE', message, { origin: 'local', hint });
    }
    if (code === 'EACCES') throw new VerityError('UNAVAILABLE', `Not allowed to listen on ${o.host}:${port}`, { origin: 'local', hint: 'use a port above 1023 with --port' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new VerityError('VALIDATION_FAILED', `Cannot listen on host "${o.host}"`);
    throw err;
  }
  await stopped;
  try {
    await running.close();
  } finally {
    lock?.release();
    removeSafetyNet();
  }
}

/** --analysis-workers / --analysis-budget-ms / --analysis-memory-mb, checked before anything starts. */
function parseAnalysisLimits(o: { analysisWorkers?: string; analysisBudgetMs: string; analysisMemoryMb: string }): { size?: number; jobBudgetMs: number; memoryMb: number } {
  const positive = (flag: string, v: string, max: number): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
      throw new VerityError('VALIDATION_FAILED', `--${flag} must be a whole number from 1 to ${max}, got "${v}"`, { details: [{ field: flag, issue: `1 to ${max}` }] });
    return Number(v);
  };
  return {
    ...(o.analysisWorkers !== undefined ? { size: positive('analysis-workers', o.analysisWorkers, 256) } : {}),
    jobBudgetMs: positive('analysis-budget-ms', o.analysisBudgetMs, 3_600_000),
    memoryMb: positive('analysis-memory-mb', o.analysisMemoryMb, 1_048_576),
  };
}

/** The worker pool for media and document analysis (server/analysis-pool.ts), on the CLI's analysis worker. */
async function startAnalysisPool(rt: CliRuntime, limits: { size?: number; jobBudgetMs: number; memoryMb: number }, storeFile: string) {
  const [{ AnalysisPool }, { analysisHost }, { availableParallelism }] = await Promise.all([
    import('../../server/analysis-pool.js'),
    import('../analysis-host.js'),
    import('node:os'),
  ]);
  // The workers are threads of the analysis host, a child process with glibc malloc settings
  // that return decoded images' memory (cli/analysis-host.ts); it runs V8 flags of its own and
  // keeps its threads' code caches in a folder of their own under the cache folder.
  const data = { pool: true as const, config: rt.engineConfig(), storeFile, cacheDir: rt.ctx.paths.cacheDir };
  const host = analysisHost();
  return new AnalysisPool({
    size: limits.size ?? availableParallelism(),
    jobBudgetMs: limits.jobBudgetMs,
    memoryMb: limits.memoryMb,
    start: (resourceLimits) => host.start(data, resourceLimits),
  });
}
