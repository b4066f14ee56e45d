import { appendFileSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { EventType } from '../../api/webhooks.js';
import { wrapLines } from '../../output/wrap.js';
import type { ListenRecord } from '../../webhooks/listener.js';
import { untilStopped } from '../context.js';
import type { CliRuntime } from '../runtime.js';
import type { Output } from '../../output/output.js';
import { splitList } from './verify-common.js';

interface ListenOptions {
  port: string;
  secret?: string[];
  secretFile?: string[];
  events?: string;
  forwardTo?: string[];
  log?: string;
  maxAge?: string;
  tlsCert?: string;
  tlsKey?: string;
  printSecret?: boolean;
}

const readPem = (path: string, field: string): Buffer => {
  try {
    return readFileSync(path);
  } catch {
    throw new VerityError('VALIDATION_FAILED', `Cannot read ${path}`, { details: [{ field, issue: 'file not found or not readable' }] });
  }
};

export default async function listen(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<ListenOptions>();
  const [{ startListener, parseForwardRoute, DEFAULT_MAX_AGE_MS }, { listenSecret, readSecretFile }, { parseEventType }, { secretHint }] =
    await Promise.all([
      import('../../webhooks/listener.js'),
      import('../../webhooks/secrets.js'),
      import('../../webhooks/service.js'),
      import('../../domain/signature.js'),
    ]);

  if (o.printSecret) {
    rt.out.print(listenSecret(rt.ctx.paths.dataDir).secret);
    return;
  }
  const port = Number(o.port);
  if (!/^\d+$/.test(o.port) || port > 65_535)
    throw new VerityError('VALIDATION_FAILED', `--port must be 0 to 65535, got "${o.port}"`, { details: [{ field: 'port', issue: '0 to 65535' }] });
  let maxAgeMs = DEFAULT_MAX_AGE_MS;
  if (o.maxAge !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(o.maxAge) || Number(o.maxAge) <= 0)
      throw new VerityError('VALIDATION_FAILED', `--max-age must be a positive number of minutes, got "${o.maxAge}"`, {
        details: [{ field: 'max-age', issue: 'minutes, > 0' }],
      });
    maxAgeMs = Number(o.maxAge) * 60_000;
  }
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey))
    throw new VerityError('VALIDATION_FAILED', '--tls-cert and --tls-key go together', { details: [{ field: o.tlsCert ? 'tls-key' : 'tls-cert', issue: 'required' }] });
  const tls = o.tlsCert && o.tlsKey ? { cert: readPem(o.tlsCert, 'tls-cert'), key: readPem(o.tlsKey, 'tls-key') } : undefined;
  const events = splitList(o.events)?.map((t) => parseEventType(t, 'events')) as EventType[] | undefined;
  const forward = (o.forwardTo ?? []).map(parseForwardRoute);

  // Secrets: flags, then files, then the environment; the local listener secret when none.
  const secrets = [...(o.secret ?? []), ...(o.secretFile ?? []).map(readSecretFile)];
  if (!secrets.length && rt.ctx.env.VERITY_WEBHOOK_SECRET) secrets.push(...rt.ctx.env.VERITY_WEBHOOK_SECRET.split(',').filter(Boolean));
  let origin = 'given';
  if (!secrets.length) {
    const local = listenSecret(rt.ctx.paths.dataDir);
    secrets.push(local.secret);
    origin = local.created ? 'local listener secret, created now' : 'local listener secret';
  }
  // --remote: the service's event stream instead of a port (issue 29); the first secret signs the forwards.
  if (rt.opts.remote !== undefined)
    return (await import('./listen-remote.js')).default(rt, cmd, { events, maxAgeMs, forward, forwardSecret: secrets[0]!, secretOrigin: origin });
  if (cmd.getOptionValue('resumeAfter') !== undefined)
    throw new VerityError('VALIDATION_FAILED', '--resume-after goes with --remote (the service keeps the events; a local listener has nothing to resume)');

  const out = rt.out;
  // Lines are written once per turn of the event loop (one write for all the events that turn
  // handled, in order), and whatever is left is written on the way out, a second Ctrl-C included.
  const onRecord = recordPrinter(out, { log: o.log, batch: true });
  process.once('exit', onRecord.flush);

  // Listening for SIGTERM before the ready line: a stop right after it must be graceful.
  const stopped = untilStopped(rt.ctx);
  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      secrets,
      port,
      tls,
      events,
      maxAgeMs,
      forward,
      onRecord,
      onProblem: (m) => out.warn(m),
    });
  } catch (err) {
    if (err instanceof VerityError && (err.cause as { code?: string } | undefined)?.code === 'EADDRINUSE') {
      const { portInUse } = await import('../port-holder.js');
      const { message, hint } = portInUse('127.0.0.1', port);
      throw new VerityError('UNAVAILABLE', message, { origin: 'local', hint });
    }
    throw err;
  }
  // The ready line is a protocol line for scripts and tests: written even with --quiet.
  rt.ctx.stderr.write(`Listening on ${listener.url}\n`);
  out.info(
    `checking signatures with ${secrets.length} secret(s): ${secrets.map(secretHint).join(', ')} (${origin})` +
      (forward.length ? `; forwarding to ${forward.map((f) => (f.type ? `${f.type}=${f.url}` : f.url)).join(', ')}` : '') +
      '; Ctrl-C to stop',
  );

  await stopped;
  await listener.close();
  onRecord.flush();
  process.off('exit', onRecord.flush);
  out.info('listener stopped');
}

/** Prints a record; `flush()` writes the lines still held back (with `batch`). */
export type RecordPrinter = ((r: ListenRecord) => void) & { flush: () => void };

/**
 * How each event and refusal shows: a line (wrapped on a terminal), or NDJSON with --json/--ndjson;
 * every record also goes to --log. Shared by `listen` and `listen --remote`.
 *
 * With `batch`, the lines of the events handled in one turn of the event loop go out in one write
 * at its end (setImmediate), in the order they came: under load that is one write for many events
 * instead of one each. The caller flushes before it exits.
 */
export function recordPrinter(out: Output, o: { log?: string; remote?: boolean; batch?: boolean }): RecordPrinter {
  const s = out.style;
  const log = (r: ListenRecord): void => {
    if (!o.log) return;
    try {
      appendFileSync(o.log, `${JSON.stringify(r)}\n`, { mode: 0o600 });
    } catch (err) {
      out.warn(`cannot write to --log ${o.log}: ${(err as Error).message}`);
    }
  };
  // The secret hint is said once per listener (the first wrong-secret refusal), not on every line.
  let secretHintShown = false;
  const refusedLine = (r: ListenRecord): string => {
    const time = r.time.slice(11, 23);
    const event = [r.type, r.event_id].filter(Boolean).join(' ');
    const what = `${event || 'a delivery'}${r.from_headers ? ' (as its headers say)' : ''}${r.webhook_id ? ` for webhook ${r.webhook_id}` : ''}`;
    let text = `${time}  ${s.red(`refused ${r.status}`)}  ${what}: ${r.explanation} ${s.dim(`(${r.reason})`)}`;
    if (r.reason === 'no_secret_matched' && !secretHintShown && !o.remote) {
      secretHintShown = true;
      text += `\n    ${s.dim('hint:')} pass the webhook's signing secret: \`verity webhooks add\` printed it once (signing secret, shown once); give it with --secret or --secret-file${
        r.webhook_id ? `, or make a new one with \`verity webhooks rotate-secret ${r.webhook_id}\`` : ', or make a new one with `verity webhooks rotate-secret WEBHOOK_ID`'
      }`;
    }
    return text;
  };
  // Fields joined by two spaces, an empty one left out (a null one joins as empty, as it always did).
  const field = (x: string | null): string => (x === '' ? '' : `  ${x ?? ''}`);
  const line = (r: ListenRecord): string => {
    if (r.outcome === 'refused') return refusedLine(r);
    // Built by concatenation (no arrays per event): time, type, id, [request id, verdict, score], detail, attempt.
    let text = r.time.slice(11, 23) + field(r.type) + field(r.event_id);
    if (r.request_id || r.verdict) {
      text += field(r.request_id ?? '—') + field(r.verdict ?? '—');
      if (r.trust_score !== null) text += `  ${r.trust_score.toFixed(3)}`;
    }
    if (r.detail) text += `  ${r.detail}`;
    text += `  attempt ${r.attempt ?? '?'}`;
    if (r.replay) text += `  ${s.cyan('replay')}`;
    if (r.outcome === 'duplicate') text += `  ${s.yellow('duplicate (already received; acknowledged)')}`;
    for (const f of r.forwards ?? [])
      if (f.already_delivered) text += `\n    → ${f.url}  ${s.dim('not sent again: it answered 2xx to an earlier attempt')}`;
      else text += `\n    → ${f.url}  ${f.status === null ? s.red(f.error ?? 'failed') : f.status < 300 ? s.green(String(f.status)) : s.red(String(f.status))}  ${f.latency_ms} ms${f.body_start ? `  ${s.dim(JSON.stringify(f.body_start.slice(0, 60)))}` : ''}`;
    if (r.outcome === 'forward_failed')
      text += `\n    ${s.red(o.remote ? 'not sent again by the stream; the answer is reported to the service (verity listen sessions)' : `answered the sender ${r.status} so it retries`)}`;
    return text;
  };
  let held = '';
  let width: number | null = null;
  const flush = (): void => {
    if (held === '') return;
    const text = held;
    held = '';
    out.write(text);
  };
  const emit = (text: string): void => {
    if (!o.batch) return out.write(text);
    if (held === '') setImmediate(flush);
    held += text;
  };
  const machine = out.opts.ndjson || out.opts.json;
  const onRecord = (r: ListenRecord): void => {
    log(r);
    if (r.outcome === 'ignored' && !out.opts.verbose) return;
    if (machine) return emit(`${JSON.stringify(r)}\n`);
    // Wrapped between words on a terminal (forward lines hang under their arrow), whole when
    // piped. The width is read once per batch (a terminal's resize shows from the next one).
    if (!o.batch || held === '') width = out.width;
    const text = wrapLines(line(r), width, 4);
    emit(text.endsWith('\n') ? text : `${text}\n`);
  };

  return Object.assign(onRecord, { flush });
}
