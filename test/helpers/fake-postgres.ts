/**
 * A fake PostgreSQL server on loopback, speaking the documented frontend/backend protocol (v3)
 * just far enough for the driver tests: it accepts a connection without a password and answers
 * queries that return no rows — a simple query (`Q`) with CommandComplete + ReadyForQuery, an
 * extended one (Parse … Sync) with ParseComplete, an empty ParameterDescription, NoData,
 * BindComplete, CommandComplete, ReadyForQuery. With `answer: n`, each connection answers its
 * first n queries and hangs up when the next one arrives: the backend of a transaction dying
 * mid-query, as on a fast shutdown, a crash or a network cut; with `fatal` too, it first sends
 * an ErrorResponse FATAL 57P01 and closes cleanly, as pg_terminate_backend does. With `silent`, it accepts
 * connections and never answers a query (a hung server, or packets lost on the way).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One backend message: type byte, Int32 length (itself included), payload. */
function message(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(payload.length + 4, 1);
  return Buffer.concat([head, payload]);
}
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`, 'utf8');

export interface FakePostgres {
  port: number;
  /** Connections that reached the hang-up (the driver's transaction was cut). */
  cut: number;
  close(): Promise<void>;
}

export async function fakePostgres(o: { answer?: number; silent?: boolean; fatal?: boolean } = {}): Promise<FakePostgres> {
  const answer = o.answer ?? Infinity;
  const sockets = new Set<Socket>();
  const state = { cut: 0 };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let started = false;
    let queries = 0;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (!started) {
          // StartupMessage: Int32 length, Int32 protocol 3.0, then name/value pairs.
          if (buf.length < 4 || buf.length < buf.readInt32BE(0)) return;
          buf = buf.subarray(buf.readInt32BE(0));
          started = true;
          socket.write(
            Buffer.concat([
              message('R', int32(0)), // AuthenticationOk
              message('S', Buffer.concat([cstr('server_version'), cstr('15.0')])),
              message('S', Buffer.concat([cstr('client_encoding'), cstr('UTF8')])),
              message('K', Buffer.concat([int32(4242), int32(1)])), // BackendKeyData
              message('Z', Buffer.from('I')), // ReadyForQuery, idle
            ]),
          );
          continue;
        }
        if (buf.length < 5 || buf.length < 1 + buf.readInt32BE(1)) return;
        const type = String.fromCharCode(buf[0]!);
        buf = buf.subarray(1 + buf.readInt32BE(1));
        if (type === 'X') return void socket.end(); // Terminate
        if (o.silent) continue; // a server that stopped answering (a hung host, a cut network)
        if (queries >= answer) {
          // The first message of the next query: the backend is gone.
          state.cut++;
          if (!o.fatal) return void socket.destroy();
          // ErrorResponse fields: severity, code, message; then the close (no ReadyForQuery).
          const fields = Buffer.concat([Buffer.from('S'), cstr('FATAL'), Buffer.from('C'), cstr('57P01'), Buffer.from('M'), cstr('terminating connection due to administrator command'), Buffer.from([0])]);
          socket.end(message('E', fields));
          return;
        }
        if (type === 'Q') {
          queries++;
          socket.write(Buffer.concat([message('C', cstr('BEGIN')), message('Z', Buffer.from('T'))]));
        } else if (type === 'S') {
          // Sync ends an extended query (Parse, Describe, Bind, Execute): its answers in order.
          queries++;
          socket.write(
            Buffer.concat([
              message('1'), // ParseComplete
              message('t', Buffer.from([0, 0])), // ParameterDescription: no parameters
              message('n'), // NoData
              message('2'), // BindComplete
              message('C', cstr('SELECT 0')),
              message('Z', Buffer.from('I')),
            ]),
          );
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    get cut() {
      return state.cut;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
