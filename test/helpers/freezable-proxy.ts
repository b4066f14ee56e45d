/**
 * A TCP proxy on loopback that a test can freeze: a network cut as PostgreSQL's clients see it
 * when packets stop without a FIN or RST (a partition, a frozen host). While frozen it accepts
 * connections and reads nothing from either side and writes nothing to either side, so the
 * client's writes are acknowledged by the kernel and its reads wait; nothing is closed.
 * `thaw()` forwards again (bytes that waited go on, in order), `cut()` destroys every connection.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface FreezableProxy {
  /** 127.0.0.1 port the proxy listens on. */
  port: number;
  freeze(): void;
  thaw(): void;
  /** Destroys every connection through the proxy (both sides). */
  cut(): void;
  /** Connections open through the proxy now. */
  open(): number;
  close(): Promise<void>;
}

/** Proxies to `target`: { host, port } or { path } (a Unix socket). */
export async function freezableProxy(target: { host: string; port: number } | { path: string }): Promise<FreezableProxy> {
  let frozen = false;
  const pairs = new Set<{ client: Socket; upstream?: Socket }>();
  const waiting: Array<() => void> = [];

  const pipe = (from: Socket, to: Socket): void => {
    from.on('data', (d) => to.write(d));
    from.on('end', () => to.end());
  };

  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream?: Socket } = { client };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => (pair.upstream?.destroy(), pairs.delete(pair)));
    client.pause();
    const start = (): void => {
      if (client.destroyed) return;
      const upstream = 'path' in target ? connect(target.path) : connect(target.port, target.host);
      pair.upstream = upstream;
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      pipe(client, upstream);
      pipe(upstream, client);
      if (frozen) upstream.pause();
      else client.resume();
    };
    if (frozen) waiting.push(start);
    else start();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

  return {
    port: (server.address() as AddressInfo).port,
    freeze() {
      frozen = true;
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const p of pairs) {
        p.client.resume();
        p.upstream?.resume();
      }
      for (const start of waiting.splice(0)) start();
    },
    cut() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream?.destroy();
      }
      waiting.length = 0;
    },
    open: () => pairs.size,
    close: () =>
      new Promise<void>((r) => {
        for (const p of pairs) (p.client.destroy(), p.upstream?.destroy());
        server.close(() => r());
      }),
  };
}
