/** Starts a fake upstream (a request handler from test/fakes) on 127.0.0.1, port 0. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

export interface Served {
  base: string;
  close(): Promise<void>;
}

export async function serve(handler: FakeHandler): Promise<Served> {
  const server = createServer((req, res) => handler(req, res, new URL(req.url ?? '/', 'http://127.0.0.1')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
