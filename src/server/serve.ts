/**
 * Running the server: listen, announce the one ready line, and shut down gracefully — stop
 * accepting, let in-flight requests finish (their usage is committed before they answer), stop
 * background work, then checkpoint and close the store.
 */
import type { FastifyInstance } from 'fastify';
import type { BackgroundTask } from './types.js';

export interface RunningServer {
  app: FastifyInstance;
  /** The URL actually bound (port 0 → the real port). */
  url: string;
  /** Idempotent: the second call returns the first call's promise. */
  close(): Promise<void>;
}

export async function startServer(
  app: FastifyInstance,
  o: { host: string; port: number; store?: { close(): void | Promise<void> }; background?: BackgroundTask; announce: (line: string) => void },
): Promise<RunningServer> {
  await app.listen({ host: o.host, port: o.port, listenTextResolver: (address) => `server bound to ${address}` });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  const url = `http://${host}:${port}`;
  o.background?.start();
  o.announce(`Listening on ${url}`);
  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    close() {
      closing ??= (async () => {
        app.log.info('shutting down');
        try {
          await app.close();
        } finally {
          try {
            await o.background?.stop();
          } finally {
            await o.store?.close();
          }
        }
        app.log.info('shut down');
      })();
      return closing;
    },
  };
}
