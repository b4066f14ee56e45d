/**
 * The PostgreSQL driver's write-after-close fault and verity's fix (src/store/postgres/driver.ts),
 * against a fake server on loopback that speaks the protocol (test/helpers/fake-postgres.ts): no
 * PostgreSQL needed, so this runs everywhere.
 * - The driver as installed (its ES module build, unpatched) dies in a child process when a
 *   transaction's backend goes away mid-query: its own ROLLBACK is written on the closed
 *   connection and `nextWrite` throws from a setImmediate (porsager/postgres#1154, #1208).
 * - The same through loadPostgres(): the transaction rejects with CONNECTION_CLOSED and the
 *   process lives; a connection closed with a write pending connects again (not poisoned); a pool
 *   whose query was cut ends without waiting for its answer.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPostgres, patchConnectionSource, PATCHED_DRIVER_VERSION, setAnswerDeadline } from '../../../src/store/postgres/driver.js';
import { fakePostgres, type FakePostgres } from '../../helpers/fake-postgres.js';

const req = createRequire(import.meta.url);
const driverDir = join(dirname(req.resolve('postgres')), '..', '..');
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

let fake: FakePostgres | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('the PostgreSQL driver as verity loads it', () => {
  it('is the version the fix was written for, and the fix applies to both of its builds', () => {
    expect(JSON.parse(readFileSync(join(driverDir, 'package.json'), 'utf8')).version).toBe(PATCHED_DRIVER_VERSION);
    for (const build of ['cjs/src/connection.js', 'src/connection.js']) {
      const text = readFileSync(join(driverDir, build), 'utf8');
      const fixed = patchConnectionSource(text);
      expect(fixed).toContain('if (socket === null) {');
      expect(fixed.match(/clearImmediate\(nextWriteTimer\), nextWriteTimer = chunk = null/g)).toHaveLength(2);
      expect(fixed).toContain('query = null /* verity');
      expect(fixed).toContain('errorResponse = null /* verity');
    }
  });

  it('refuses a driver text it was not written for instead of running it unfixed', () => {
    const text = readFileSync(join(driverDir, 'cjs/src/connection.js'), 'utf8');
    expect(() => patchConnectionSource(text.replace('const x = socket.write(chunk, fn)', 'const x = socket && socket.write(chunk, fn)'))).toThrow(
      /not the version whose write-after-close fault verity fixes/,
    );
  });

  it('unfixed, dies when a transaction loses its backend mid-query (the fault this fix is for)', async () => {
    fake = await fakePostgres({ answer: 1 });
    // The installed driver's ES module build, as any other program would import it.
    const script = `
      import postgres from 'postgres';
      const sql = postgres({ host: '127.0.0.1', port: ${fake.port}, user: 'u', database: 'd', fetch_types: false, max: 1, onnotice() {} });
      await sql.begin(async (tx) => { await tx\`select 1\`; }).catch((e) => console.log('rejected', e.code));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      console.log('alive');
      process.exit(0);
    `;
    // (Asynchronously: the fake server answers from this process's event loop.)
    const r = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: driverDir, reject: false, timeout: 20_000 });
    expect(fake.cut).toBe(1);
    expect(r.stdout).not.toContain('alive');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/TypeError: Cannot read properties of null \(reading 'write'\)[\s\S]*nextWrite/);
  });

  it('fixed: the transaction rejects with CONNECTION_CLOSED, nothing is thrown from a timer, and the pool connects again', async () => {
    fake = await fakePostgres({ answer: 1 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', fetch_types: false, max: 1, onnotice: () => undefined });
    try {
      const err = await sql.begin(async (tx) => void (await tx`select 1`)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as { code?: string }).code).toBe('CONNECTION_CLOSED');
      expect(fake.cut).toBe(1);
      // The driver's ROLLBACK, written after the close, went out in one of these turns.
      await turns(5);
      expect(uncaught).toEqual([]);
      // The same connection object, reconnected: BEGIN answered, the next query cut again.
      const again = await sql.begin(async (tx) => void (await tx`select 1`)).catch((e: unknown) => e);
      expect((again as { code?: string }).code).toBe('CONNECTION_CLOSED');
      expect(fake.cut).toBe(2);
      await turns(5);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await sql.end({ timeout: 0 });
    }
  });

  it('fixed: a reserved connection released after the server cut it fails the queries of that turn, then the pool connects again', async () => {
    // (With the driver's type query, as the store runs it: a reserve() is handed its connection
    // after that query. Each connection answers it and one more.)
    fake = await fakePostgres({ answer: 2 });
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', max: 1, onnotice: () => undefined });
    try {
      const r = await sql.reserve();
      await r`select 1`;
      expect(((await r`select 2`.catch((e: unknown) => e)) as { code?: string }).code).toBe('CONNECTION_CLOSED');
      // Released after its close (as a failed transaction's finally does): back in the open queue.
      r.release();
      expect(((await sql`select 3`.catch((e: unknown) => e)) as { code?: string }).code).toBe('CONNECTION_CLOSED');
      // Given back to the pool as closed in the next turn of the event loop; unfixed, it stays
      // there: every later query fails (or, reserved, waits for ever).
      await turns(1);
      await expect(sql`select 4`).resolves.toBeDefined();
      const again = await sql.reserve();
      await expect(again`select 5`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    } finally {
      await sql.end({ timeout: 0 });
    }
  });

  it('fixed: after the server terminated a backend mid-query (FATAL 57P01), a reserve() connecting on that connection gets it, not the old error', async () => {
    // Each connection answers the type query and one more; the next is answered with
    // pg_terminate_backend's FATAL 57P01 and a clean close.
    fake = await fakePostgres({ answer: 2, fatal: true });
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', max: 1, onnotice: () => undefined });
    try {
      await sql`select 1`;
      expect(((await sql`select 2`.catch((e: unknown) => e)) as { code?: string }).code).toBe('CONNECTION_CLOSED');
      expect(fake.cut).toBe(1);
      // The pool's one connection is closed: the reserve connects it. Unfixed, the new
      // connection's first ReadyForQuery failed the reserve with the closed socket's 57P01, and
      // the pool then handed the connection to that failed reserve: stranded, every later query
      // of the pool waited for ever.
      const got = await sql.reserve().then(
        (r) => r`select 3`.then(() => (r.release(), 'reserved and answered')),
        (e: unknown) => `reserve failed: ${(e as { code?: string }).code}`,
      );
      expect(got).toBe('reserved and answered');
    } finally {
      await sql.end({ timeout: 0 });
    }
  });

  it('fixed: a query on a reserved connection after its close fails at once, and does not get in the way of the pool connecting it again', async () => {
    fake = await fakePostgres({ answer: 2 }); // the type query and one more per connection
    const postgres = loadPostgres();
    // Reconnecting at once (no backoff): the new socket exists before the next setImmediate.
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', max: 1, backoff: (() => 0) as never, onnotice: () => undefined });
    let bound: NodeJS.Timeout | undefined;
    try {
      const r = await sql.reserve();
      await r`select 1`;
      // A query of the pool waits for the reserved connection...
      const waiting = sql`select 2`.then(() => 'answered', (e: unknown) => `failed: ${(e as Error).message}`);
      // ...which the server cuts: the pool connects it again for the waiting query.
      expect(((await r`select 3`.catch((e: unknown) => e)) as { code?: string }).code).toBe('CONNECTION_CLOSED');
      // What a failed transaction then sends (its ROLLBACK) on the reserved handle: refused at
      // once. Unfixed, it went to the new socket ahead of its StartupMessage.
      const late = r`select 4`.then(() => 'answered', (e: unknown) => (e as { code?: string }).code);
      const outcome = await Promise.race([
        Promise.all([late, waiting]),
        new Promise((resolve) => (bound = setTimeout(() => resolve('no answer within 10 s'), 10_000))),
      ]);
      expect(outcome).toEqual(['CONNECTION_CLOSED', 'answered']);
    } finally {
      clearTimeout(bound);
      void sql.end({ timeout: 0 });
    }
  });

  it('fixed: a connection cut while it reads the array types (just connected for a reserve) leaves no unhandled rejection', async () => {
    fake = await fakePostgres({ answer: 0 }); // every connection is cut at its first query: the type query
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => void unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', max: 1, onnotice: () => undefined });
    try {
      void sql.reserve().catch(() => undefined);
      // The pool connects again for the reserve; each connection is cut during its type query.
      for (let i = 0; i < 400 && fake.cut < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(fake.cut).toBe(2);
      await turns(3);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      void sql.end({ timeout: 0 });
    }
  });

  it('fixed: a pool whose query was cut by the server ends (end() does not wait for an answer that cannot come)', async () => {
    fake = await fakePostgres({ answer: 0 });
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', fetch_types: false, max: 1, onnotice: () => undefined });
    expect(((await sql`select 1`.catch((e: unknown) => e)) as { code?: string }).code).toBe('CONNECTION_CLOSED');
    // end() without a timeout: unfixed it waits for the cut query's answer for ever.
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      sql.end().then(() => 'ended'),
      new Promise((r) => (bound = setTimeout(() => r('still waiting after 10 s'), 10_000))),
    ]);
    clearTimeout(bound);
    if (outcome !== 'ended') void sql.end({ timeout: 0 }); // (unfixed: that is the same stuck promise)
    expect(outcome).toBe('ended');
  });

  it('fixed: a connection that closes with a small write pending is not left unable to send (its next StartupMessage goes out)', async () => {
    fake = await fakePostgres();
    const postgres = loadPostgres();
    let current: Socket | undefined;
    // (`socket`, a documented option of the driver, is missing from its type declarations.)
    const withSocket = postgres as unknown as (o: object) => ReturnType<typeof postgres>;
    const sql = withSocket({
      user: 'u',
      database: 'd',
      fetch_types: false,
      max: 1,
      // A connect bound that a stuck StartupMessage would run into (unfixed: CONNECT_TIMEOUT).
      connect_timeout: 3,
      onnotice: () => undefined,
      // Our own socket, so the test can cut it at a chosen moment.
      socket: () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(fake!.port, '127.0.0.1');
          s.once('connect', () => resolve((current = s)));
          s.once('error', reject);
        }),
    });
    try {
      await sql`select 1`;
      // As on a restart, when every connection closes in the same turn of the event loop: a query
      // issued from one socket's close (here a bystander's) is written to a connection whose own
      // close is next in that turn — its bytes wait for the driver's setImmediate, which closed()
      // cancels.
      const bystander = connect(fake.port, '127.0.0.1');
      await new Promise((r) => bystander.once('connect', r));
      const cut = new Promise((resolve) => bystander.once('close', () => resolve(sql`select 2`.catch((e: unknown) => e))));
      // (libuv runs close callbacks last-closed first: the bystander's close comes first.)
      const closed = new Promise((r) => current!.once('close', r));
      current!.destroy();
      bystander.destroy();
      expect(((await cut) as { code?: string }).code).toBe('CONNECTION_CLOSED');
      // The pool reconnects the same connection object once it closed (a query given to it before,
      // on the destroyed socket, fails at once: see EXECUTE_FIXED): its StartupMessage must be sent.
      await closed;
      await expect(sql`select 3`).resolves.toBeDefined();
    } finally {
      await sql.end({ timeout: 0 });
    }
  });
});

describe('the answer deadline through the driver (a network cut)', () => {
  it('fails a query the server does not answer with ETIMEDOUT, and the query given to the connection next is not left waiting', async () => {
    fake = await fakePostgres({ silent: true });
    const postgres = loadPostgres();
    setAnswerDeadline(300);
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', fetch_types: false, max: 1, onnotice: () => undefined });
    let bound: NodeJS.Timeout | undefined;
    try {
      // The next query goes out a turn after the first failed, as the request guard's next batch
      // does: the socket is destroyed but not closed yet. Before the close handling rejected it
      // after an error too, it was written to the dead socket and waited for ever.
      const next = new Promise<string>((resolve) => {
        sql`select 1`.catch((e: unknown) => {
          resolve(`first: ${(e as { code?: string }).code}`);
        });
      }).then(
        (first) =>
          new Promise<string[]>((resolve) =>
            setImmediate(() => void sql`select 2`.then(() => [first, 'answered'], (e: unknown) => [first, `next: ${(e as { code?: string }).code}`]).then(resolve)),
          ),
      );
      const outcome = await Promise.race([next, new Promise((resolve) => (bound = setTimeout(() => resolve('no answer within 10 s'), 10_000)))]);
      // The next one fails too (CONNECTION_CLOSED on the dead socket, or ETIMEDOUT on a new
      // connection the server does not answer either, by when the close came): never left waiting.
      expect(outcome).toEqual(['first: ETIMEDOUT', expect.stringMatching(/^next: (CONNECTION_CLOSED|ETIMEDOUT)$/)]);
    } finally {
      setAnswerDeadline(undefined);
      clearTimeout(bound);
      void sql.end({ timeout: 0 });
    }
  });
});
