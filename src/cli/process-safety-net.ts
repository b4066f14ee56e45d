/**
 * The last line of defence of the long-running processes, `serve` and `worker` (issue 28).
 *
 * - An unhandled promise rejection — a background task (a driver callback, a timer, a delivery)
 *   whose failure nobody awaited — is logged and the process keeps serving. Node's default ends
 *   the process, which turns one missed `.catch` on a transient database error into an outage of
 *   every request in flight; the rejection cannot have left shared state half-written (a
 *   rejected promise is a value, not a torn stack), so staying up is the better trade.
 * - An uncaught exception still ends the process (exit 1): it was thrown out of some callback
 *   midway, and whatever that callback was changing may be half done; a supervisor starts a clean
 *   process. It is logged first, in one line, as below.
 * Both lines are redacted: an API key, any other long token and a URL's password never reach the
 * log whole (an error from the driver or a webhook may carry them).
 */
const KEY_SHAPED = /vty_(live|test)_[0-9A-Za-z]*/g;
/** A 32+ character base62-ish run: someone's key body, a token, a secret. */
const LONG_TOKEN = /[0-9A-Za-z_-]{32,}/g;
/** scheme://user:password@host → scheme://user:***@host */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi;

/** The error as one redacted line: its message and where it was thrown (the stack's frames). */
export function redactedErrorLine(err: unknown): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text
    .replace(URL_PASSWORD, '$1:***@')
    .replace(KEY_SHAPED, 'vty_$1_[redacted]')
    .replace(LONG_TOKEN, '[redacted]')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ');
}

export interface SafetyNetOptions {
  /** The process's name in the log line ("serve", "worker"). */
  name: string;
  /** Writes one line (stderr). */
  write(line: string): void;
  /** Ends the process after an uncaught exception (process.exit; a stand-in in tests). */
  exit?(code: number): void;
}

/** Installs the two handlers; returns a function that removes them. */
export function installProcessSafetyNet(o: SafetyNetOptions): () => void {
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const onRejection = (reason: unknown): void => {
    try {
      o.write(`${o.name}: unhandled promise rejection, logged and kept running: ${redactedErrorLine(reason)}\n`);
    } catch {
      // nowhere left to write it; keep running all the same
    }
  };
  const onException = (err: unknown): void => {
    try {
      o.write(`${o.name}: uncaught exception, exiting (state may be inconsistent; restart the process): ${redactedErrorLine(err)}\n`);
    } finally {
      exit(1);
    }
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
