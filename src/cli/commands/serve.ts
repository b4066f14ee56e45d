import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { untilStopped } from '../context.js';
import type { CliRuntime } from '../runtime.js';

export default async function serve(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ host: string; port: string; db?: string; logLevel: string; allowPrivateWebhooks?: boolean }>();
  const port = Number(o.port);
  if (!/^\d+$/.test(o.port) || port > 65_535)
    throw new VerityError('VALIDATION_FAILED', `--port must be 0 to 65535, got "${o.port}"`, { details: [{ field: 'port', issue: '0 to 65535' }] });
  const [{ openStore }, { acquireServeLock }, { buildServer }, { createServerEngines }, { startServer }] = await Promise.all([
    import('../../store/database.js'),
    import('../../store/serve-lock.js'),
    import('../../server/app.js'),
    import('../../server/engines.js'),
    import('../../server/serve.js'),
  ]);
  const dbPath = o.db ?? rt.ctx.paths.storeFile;
  // Before the store is opened: a second serve on the same file must not even migrate it.
  const lock = acquireServeLock(dbPath);
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(dbPath);
  } catch (err) {
    lock?.release();
    throw err;
  }
  // Listening for SIGTERM before the ready line is written: a supervisor (or a test) may stop the
  // server the moment it reads that line, and must get a graceful stop, not the default kill.
  const stopped = untilStopped(rt.ctx);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    const claim = rt.config().claim;
    const nli = claim?.stance === 'nli' ? (await import('../../engine/claim/nli/configured.js')).configuredNliClassifier(rt.ctx.paths.dataDir, claim.nli_model) : undefined;
    const engines = createServerEngines({ config: rt.engineConfig(), store, cacheDir: rt.ctx.paths.cacheDir, clock: rt.ctx.clock, ...(nli ? { nli } : {}) });
    const allowPrivate = o.allowPrivateWebhooks === true;
    const { sqliteServerStore } = await import('../../store/sqlite-server-store.js');
    const serverStore = sqliteServerStore(store.db);
    const webhooks = (await import('../../webhooks/server-plugin.js')).webhookServerHooks({
      store: serverStore,
      clock: rt.ctx.clock,
      targetPolicy: { allowPrivate },
    });
    const app = await buildServer({ store: serverStore, engines, clock: rt.ctx.clock, logLevel: o.logLevel, logStream: rt.ctx.stderr, ...webhooks });
    if (allowPrivate)
      app.log.warn(
        { allow_private_webhooks: true },
        'webhook targets are NOT guarded (--allow-private-webhooks): any key holder can make this server send requests to http, loopback and private addresses; use for development only',
      );
    running = await startServer(app, {
      background: webhooks.background,
      host: o.host,
      port,
      // The server store first (its deferred writes), then the SQLite file (checkpoint, close).
      store: { close: async () => void (await serverStore.close(), store.close()) },
      // The ready line is a protocol line for scripts and tests, so it is written even with --quiet.
      announce: (line) => void rt.ctx.stderr.write(`${line}\n`),
    });
  } catch (err) {
    store.close();
    lock?.release();
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new VerityError('UNAVAILABLE', `Port ${port} on ${o.host} is already in use; pick another with --port`);
    if (code === 'EACCES') throw new VerityError('UNAVAILABLE', `Not allowed to listen on ${o.host}:${port}; use a port above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new VerityError('VALIDATION_FAILED', `Cannot listen on host "${o.host}"`);
    throw err;
  }
  await stopped;
  try {
    await running.close();
  } finally {
    lock?.release();
  }
}
