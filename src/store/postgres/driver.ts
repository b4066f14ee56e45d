/**
 * The PostgreSQL driver, postgres.js (porsager), loaded with a fix for its write-after-close fault.
 *
 * The fault (postgres 3.4.9, the newest release; upstream issues porsager/postgres#1066, #1154,
 * #1208, unfixed PRs #1168/#1176): the driver batches small writes behind a `setImmediate`
 * (`write` → `nextWrite`). When a connection closes, `closed()` cancels that immediate and sets
 * `socket = null`, but
 *  1. a write issued on the connection AFTER it closed — the ROLLBACK that `sql.begin()` sends
 *     itself when a query of the transaction failed because the server went away, or one of ours
 *     on a `reserve()`d connection — schedules a new immediate, which then runs `socket.write` on
 *     null: a TypeError thrown from a timer callback, which no caller can catch, and the process
 *     dies (three `serve` processes out of three on a PostgreSQL restart, issue 28);
 *  2. `closed()` and `terminate()` cancel the immediate without forgetting it (`nextWriteTimer`
 *     stays set) or the bytes it would have sent (`chunk`): every later small write on that
 *     connection object — the pool reuses it, starting with the next StartupMessage — is appended
 *     to the dead socket's bytes and never scheduled, so the connection hangs until its connect
 *     timeout, again and again (requests unanswered for 30 s after a restart).
 *
 *  3. `closed()` rejects the query that was out but keeps it as the connection's current query:
 *     `end()` on a connection that was not reconnected since waits for its answer until end's
 *     timeout (a graceful stop after a restart took 5 s, and without a timeout never ended).
 *
 *  4. a query executed on a reserved connection after its close (begin's ROLLBACK; ours) waits
 *     for the pool to connect that connection again for another query, and is then written to the
 *     new socket ahead of its StartupMessage, or left in the pipeline for an answer that never
 *     comes: requests hung for 15 s and more after a restart.
 *
 *  5. the array types are fetched after each connect by an async function whose promise nobody
 *     holds: a close during that query was an unhandled rejection, which ends a Node process.
 *
 *  6. the ErrorResponse of a query the server cut (pg_terminate_backend's FATAL 57P01, sent just
 *     before it closes) stays the connection's `errorResponse` after the close: the next connect's
 *     first ReadyForQuery takes it for its own and fails the query it was connecting for. When
 *     that is a `reserve()` made on a closed connection (it stays in the pool's queue while it is
 *     connected for), the pool then hands the connection to that already failed reserve, which
 *     never takes it: the connection sits in the connecting queue for ever. On a pool of one (the
 *     store's commit and request-guard connections) every later query waited for ever: /healthz
 *     503 and a graceful stop that never ended, after every backend was terminated under load.
 *
 * The fix, edits to the driver's connection.js as it is loaded (no install script: CI installs
 * with --ignore-scripts, and the files in node_modules are left as npm wrote them):
 *  - `execute` on a closed connection (no socket, or one destroyed and not closed yet: a query
 *    given to it between the socket's error and its close waited for ever) fails the query at once with CONNECTION_CLOSED
 *    (and gives the connection back to the pool as closed, as below);
 *  - a write on a closed connection always goes through the setImmediate, where `nextWrite`
 *    drops the bytes and fails the queries waiting on them with the driver's own
 *    CONNECTION_CLOSED error (what a query on a closed connection gets anyway), and gives the
 *    connection back to the pool as closed when the pool has it elsewhere (a `reserve()`d
 *    connection released after its close sits in the open queue: every query on it failed, and a
 *    reserve waiting behind it waited for ever);
 *  - `closed()` and `terminate()` forget the pending write with its immediate;
 *  - `closed()` forgets the query it rejected, and the error the server sent before it closed;
 *  - the type fetch's rejection is handled (the connection's close handling retries);
 *  - each connected socket is handed to `onConnectedSocket` with a function that says whether a
 *    query waits on it, for the answer deadline (./answer-deadline.ts; a network cut).
 * The driver's CommonJS build (cjs/src, the same code as its ES module build) is used: its
 * connection.js is compiled from the patched text and put in the require cache before its
 * index.js is required, so the rest of the driver is loaded unchanged by Node itself. If the
 * driver's text is not what the patch was written against (a driver upgrade), loading fails with
 * a message that says so, rather than running an unpatched driver; test/unit/store/
 * postgres-driver.test.ts shows the fault and the fix against a fake server on loopback.
 */
import Module, { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Socket } from 'node:net';
import type postgresType from 'postgres';
import { watchAnswers } from './answer-deadline.js';

export type Postgres = typeof postgresType;

/** The driver version the patch was reviewed against (package.json pins it). */
export const PATCHED_DRIVER_VERSION = '3.4.9';

const NEXT_WRITE = `  function write(x, fn) {
    chunk = chunk ? Buffer.concat([chunk, x]) : Buffer.from(x)
    if (fn || chunk.length >= 1024)
      return nextWrite(fn)
    nextWriteTimer === null && (nextWriteTimer = setImmediate(nextWrite))
    return true
  }

  function nextWrite(fn) {
    const x = socket.write(chunk, fn)
    nextWriteTimer !== null && clearImmediate(nextWriteTimer)
    chunk = nextWriteTimer = null
    return x
  }
`;

const NEXT_WRITE_FIXED = `  function write(x, fn) {
    chunk = chunk ? Buffer.concat([chunk, x]) : Buffer.from(x)
    /* verity: on a closed connection always through the setImmediate (below), never inside execute() */
    if (socket !== null && (fn || chunk.length >= 1024))
      return nextWrite(fn)
    nextWriteTimer === null && (nextWriteTimer = setImmediate(nextWrite))
    return true
  }

  function nextWrite(fn) {
    if (socket === null) {
      /* verity (issue 28; porsager/postgres#1154, #1208): written after the connection closed;
         the bytes have nowhere to go. Fail what waits on them instead of throwing from a timer,
         and give the connection back to the pool as closed when the pool has it elsewhere (a
         reserve()d one released after its close sits in the open queue): the pool then connects
         it again instead of failing every query on it, or leaving a reserve() waiting, for ever. */
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      const err = Errors.connection('CONNECTION_CLOSED', options, socket)
      query && (queryError(query, err), query = null)
      while (sent.length)
        queryError(sent.shift(), err)
      fn && fn(err)
      connection.queue !== queues.closed && connection.queue !== queues.connecting && connection.queue !== queues.ended
        && onclose(connection, err)
      return true
    }
    const x = socket.write(chunk, fn)
    nextWriteTimer !== null && clearImmediate(nextWriteTimer)
    chunk = nextWriteTimer = null
    return x
  }
`;

const EXECUTE = `  function execute(q) {
    if (terminated)
      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))
`;
const EXECUTE_FIXED = `  function execute(q) {
    if (terminated)
      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))

    if (socket === null || socket.destroyed) {
      /* verity (issue 28): the connection closed under a reserve() or begin() that still holds it
         (begin's own ROLLBACK after a failed query comes here). Refused now: queued, the query
         would be written to the socket of the next connect, before its StartupMessage, or wait
         behind it for an answer that never comes. A connection the pool placed in a queue other
         than closed (a released one) is given back as closed once the caller has placed it.
         Likewise on a socket destroyed but not closed yet (its close comes a loop phase after its
         error): a query given to the connection in between was written to the dead socket and
         waited for ever (twelve requests at once behind a frozen database, the answer deadline). */
      const err = Errors.connection('CONNECTION_CLOSED', options, socket)
      queryError(q, err)
      setImmediate(() => socket === null && connection.queue !== queues.closed && connection.queue !== queues.connecting
        && connection.queue !== queues.ended && onclose(connection, err))
      return true
    }
`;

/**
 * The array types are read by an async function whose promise nobody holds: when the connection
 * closes during that query (a restart right after a reconnect for a reserve()), its rejection was
 * unhandled and ended the process. The connection's own close handling retries; the next connect
 * reads the types again.
 */
const FETCH_TYPES = '\n        return fetchArrayTypes()\n';
const FETCH_TYPES_FIXED = '\n        return fetchArrayTypes().catch(noop) /* verity (issue 28): see the close handling */\n';

/**
 * In closed(): the query that was out is rejected (here, or by the socket's error before) but
 * stayed the connection's current query; a connection that is not reconnected then made `end()`
 * wait for its answer until end's timeout (every graceful stop after a restart took 5 s).
 */
const CLOSED_REJECT = "\n    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n";
const CLOSED_REJECT_FIXED =
  "\n    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    query = null /* verity (issue 28): rejected; nothing will answer it */\n";

/**
 * At the start of closed(): the server's error for the query it cut belongs to the socket that
 * closed; kept, the next connect's first ReadyForQuery fails the query (or reserve) it connects
 * for with it, and a failed reserve strands the connection (fault 6 above).
 */
const CLOSED_START = '\n  async function closed(hadError) {\n    incoming = Buffer.alloc(0)\n';
const CLOSED_START_FIXED =
  '\n  async function closed(hadError) {\n    errorResponse = null /* verity: the closed socket\'s; not the next connect\'s (see driver.ts) */\n    incoming = Buffer.alloc(0)\n';

/** In terminate() and closed(): the cancelled write is forgotten too (verity, issue 28). */
const CANCEL = '\n    clearImmediate(nextWriteTimer)\n';
const CANCEL_FIXED = '\n    clearImmediate(nextWriteTimer), nextWriteTimer = chunk = null\n';

/**
 * In connected(): the socket that reads the server's bytes (the TLS one with TLS) and whether a
 * query waits on the connection, for the answer deadline (verity, issue 28: a network cut).
 */
const CONNECTED = "\n      socket.on('data', data)\n";
const CONNECTED_FIXED =
  "\n      socket.on('data', data)\n      Connection.verityOnSocket && Connection.verityOnSocket(socket, () => !!(query || initial || sent.length)) /* verity (issue 28): answer deadline */\n";

/** connection.js's text with the fix; throws when the text is not the one the fix was made for. */
export function patchConnectionSource(source: string): string {
  const writes = source.split(NEXT_WRITE).length - 1;
  const cancels = source.split(CANCEL).length - 1;
  const rejects = source.split(CLOSED_REJECT).length - 1;
  const executes = source.split(EXECUTE).length - 1;
  const types = source.split(FETCH_TYPES).length - 1;
  const connects = source.split(CONNECTED).length - 1;
  const closes = source.split(CLOSED_START).length - 1;
  if (closes !== 1 || connects !== 1 || !source.includes('function Connection(') || writes !== 1 || cancels !== 2 || rejects !== 1 || executes !== 1 || types !== 1 || !source.includes('noop = () =>') || !source.includes('function terminate() {') || !source.includes('async function closed(hadError) {'))
    throw new Error(
      `The PostgreSQL driver (postgres) is not the version whose write-after-close fault verity fixes as it loads it ` +
        `(${PATCHED_DRIVER_VERSION}; found nextWrite ${writes}x, the cancel ${cancels}x, the close's reject ${rejects}x, execute ${executes}x, the type fetch ${types}x, connected ${connects}x, closed ${closes}x): review src/store/postgres/driver.ts against the new version`,
    );
  return source
    .replace(EXECUTE, EXECUTE_FIXED)
    .replace(NEXT_WRITE, NEXT_WRITE_FIXED)
    .split(CANCEL)
    .join(CANCEL_FIXED)
    .replace(CLOSED_REJECT, CLOSED_REJECT_FIXED)
    .replace(FETCH_TYPES, FETCH_TYPES_FIXED)
    .replace(CONNECTED, CONNECTED_FIXED)
    .replace(CLOSED_START, CLOSED_START_FIXED);
}

/** The answer deadline for every connection of this process (ms), or none. */
let answerDeadlineMs: number | undefined;

/**
 * Sets (or, undefined, lifts) the answer deadline of the PostgreSQL connections of this process
 * (./answer-deadline.ts). Process-wide because one process runs one store; `serve` and `worker`
 * set it once the migrations have run (a long one must not be cut), admin commands do not.
 */
export function setAnswerDeadline(ms: number | undefined): void {
  answerDeadlineMs = ms;
}

/**
 * Every connection is watched, the deadline read at each check: one made while none was set (the
 * start-up's, which runs the migrations) is bounded once one is. Without one, a check a second.
 */
function onConnectedSocket(socket: Socket, busy: () => boolean): void {
  watchAnswers(socket, busy, () => answerDeadlineMs);
}

let loaded: Postgres | undefined;

/** The driver's constructor, its connection.js patched (loaded once per process). */
export function loadPostgres(): Postgres {
  if (loaded) return loaded;
  const req = createRequire(import.meta.url);
  // The package's "default" export condition: the CommonJS build, cjs/src/index.js.
  const entry = req.resolve('postgres');
  const file = join(dirname(entry), 'connection.js');
  const version = (JSON.parse(readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  const cached = req.cache[file] as (NodeJS.Module & { verityPatched?: boolean }) | undefined;
  if (!cached?.verityPatched) {
    if (cached) throw new Error(`The PostgreSQL driver's connection.js (postgres ${version}) was loaded before verity could fix it`);
    let patched: string;
    try {
      patched = patchConnectionSource(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${(err as Error).message} (installed: ${version})`);
    }
    // What require() itself does for a file, with the patched text: a module in the cache under
    // the file's own name, so index.js's require('./connection.js') gets it.
    const m = new Module(file) as NodeJS.Module & { verityPatched?: boolean; _compile(code: string, filename: string): void };
    m.filename = file;
    m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
    m.verityPatched = true;
    req.cache[file] = m;
    try {
      m._compile(patched, file);
    } catch (err) {
      delete req.cache[file];
      throw err;
    }
    m.loaded = true;
  }
  (req.cache[file]!.exports as { verityOnSocket?: typeof onConnectedSocket }).verityOnSocket = onConnectedSocket;
  loaded = req(entry) as Postgres;
  return loaded;
}
