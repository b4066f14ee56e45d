/**
 * `verity listen --remote [URL]` (issue 29): the service's event stream instead of a port. Connects
 * OUT to GET /v1/events/stream with the profile's key (no port is opened here, no tunnel needed),
 * checks, prints and forwards each event as local `listen` does (src/webhooks/remote-listen.ts),
 * reports what the app answered back to the service, and reconnects with backoff, resuming after
 * the last event it received (Last-Event-ID). Ctrl-C or SIGTERM ends it with exit 0.
 */
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { EventType } from '../../api/webhooks.js';
import type { ForwardRoute, ListenRecord } from '../../webhooks/listener.js';
import type { StreamResult, StreamSession } from '../../webhooks/remote-listen.js';
import { untilStopped } from '../context.js';
import type { CliRuntime } from '../runtime.js';
import { recordPrinter } from './listen.js';

export interface RemoteListenSettings {
  events?: EventType[];
  maxAgeMs: number;
  forward: ForwardRoute[];
  /** Signs the forwards to the app (the local listener secret unless --secret said otherwise). */
  forwardSecret: string;
  /** Where forwardSecret came from, for the ready note. */
  secretOrigin: string;
}

/** Results posted but not yet answered, at most; more are dropped with one warning (the service is slow or down). */
const MAX_PENDING_REPORTS = 256;
/** How long a stop waits for the last reports to reach the service. */
const REPORT_DRAIN_MS = 3_000;

export default async function listenRemote(rt: CliRuntime, cmd: Command, s: RemoteListenSettings): Promise<void> {
  for (const [flag, name] of [
    ['port', '--port'],
    ['tlsCert', '--tls-cert'],
    ['tlsKey', '--tls-key'],
  ] as const)
    if (cmd.getOptionValueSource(flag) === 'cli')
      throw new VerityError('VALIDATION_FAILED', `${name} is for the local listener; listen --remote opens no port`, {
        details: [{ field: name.slice(2), issue: 'not with --remote' }],
      });
  const resumeAfter = cmd.opts<{ resumeAfter?: string }>().resumeAfter;
  if (resumeAfter !== undefined && !/^wh_[0-9A-Za-z]{1,64}$/.test(resumeAfter))
    throw new VerityError('VALIDATION_FAILED', `--resume-after must be an event id (wh_…), got "${resumeAfter}"`, {
      details: [{ field: 'resume-after', issue: 'an event id, wh_…' }],
    });
  const connection = await rt.connection();
  if (connection.mode !== 'remote') throw new VerityError('VALIDATION_FAILED', 'listen --remote and --local cannot be used together');
  const [{ runSse }, { callRemote, endpoint }, { createStreamHandler, parseMissed, parseSession, parseStreamEvent, resultsOf }, { secretHint }, { userAgent }] =
    await Promise.all([
      import('../../client/sse-client.js'),
      import('../../client/remote-engine.js'),
      import('../../webhooks/remote-listen.js'),
      import('../../domain/signature.js'),
      import('../../engine/default-ports.js'),
    ]);
  const out = rt.out;
  const print = recordPrinter(out, { log: cmd.opts<{ log?: string }>().log, remote: true });
  const host = new URL(connection.baseUrl).host;
  const apiKey = connection.key?.value;
  const api = { baseUrl: connection.baseUrl, apiKey, userAgent: userAgent(), maxAttempts: 2, timeoutMs: 10_000 };

  // One stop for everything: Ctrl-C (ctx.interrupted) or SIGTERM.
  const stop = new AbortController();
  void untilStopped(rt.ctx).then(() => stop.abort());
  const handler = createStreamHandler({ events: s.events, maxAgeMs: s.maxAgeMs, forward: s.forward, forwardSecret: s.forwardSecret, signal: stop.signal });

  // Reports go out beside the stream (never hold it up), bounded, and are waited for at the end.
  const pending = new Set<Promise<void>>();
  let reportWarned = false;
  const report = (sessionId: string, results: StreamResult[]): void => {
    for (const r of results) {
      if (pending.size >= MAX_PENDING_REPORTS) {
        if (!reportWarned) out.warn(`the service is not taking results fast enough; some app answers are not reported`);
        reportWarned = true;
        return;
      }
      const p = callRemote<unknown>(api, 'POST', `/events/stream/sessions/${encodeURIComponent(sessionId)}/results`, r)
        .then(() => undefined)
        .catch((err: unknown) => {
          if (!reportWarned) out.warn(`cannot report the app's answer to ${host}: ${(err as Error).message}`);
          reportWarned = true;
        })
        .finally(() => pending.delete(p));
      pending.add(p);
    }
  };

  let session: StreamSession | undefined;
  let sessions = 0;
  const onMessage = async (m: { event?: string; id?: string; data: string }): Promise<void> => {
    if (m.event === 'session') {
      const next = parseSession(m.data);
      if (!next) throw new VerityError('UNAVAILABLE', `${host} opened the event stream without a valid session message: is it a verity service?`, { origin: 'transport' });
      session = next;
      sessions++;
      const resumed = next.resumed_after ? `, resuming after ${next.resumed_after}` : '';
      // The ready line is a protocol line for scripts and tests: written even with --quiet.
      rt.ctx.stderr.write(`Connected to ${host} (session ${next.session_id}${resumed})\n`);
      if (sessions === 1)
        out.info(
          `${next.environment ?? ''} events${next.events?.length ? ` (${next.events.join(', ')})` : ''} checked with the session secret ${secretHint(next.secret)}` +
            (s.forward.length
              ? `; forwarding to ${s.forward.map((f) => (f.type ? `${f.type}=${f.url}` : f.url)).join(', ')}, signed with ${secretHint(s.forwardSecret)} (${s.secretOrigin})`
              : '') +
            '; Ctrl-C to stop',
        );
      return;
    }
    if (m.event === 'missed') {
      const missed = parseMissed(m.data);
      if (missed)
        out.warn(
          `events after ${missed.after} are no longer kept by the service (${missed.reason}${missed.oldest_retained ? `; the oldest kept is ${missed.oldest_retained}` : ''}); send them again with: ${missed.replay}`,
        );
      return;
    }
    const ev = parseStreamEvent(m.data);
    if (!ev || !session) {
      out.warn(`skipped a stream message that is not an event${m.id ? ` (id ${m.id})` : ''}`);
      return;
    }
    const current = session;
    const record: ListenRecord = await handler.handle(ev, current.secret);
    if (stop.signal.aborted) return; // a forward cut by Ctrl-C: not the app's answer
    print(record);
    report(current.session_id, resultsOf(record));
  };

  const url = new URL(endpoint(connection.baseUrl, '/events/stream'));
  if (s.events?.length) url.searchParams.set('events', s.events.join(','));
  const headers: Record<string, string> = { 'user-agent': api.userAgent };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  try {
    await runSse({
      url: url.toString(),
      headers,
      lastEventId: resumeAfter,
      // A service that cannot be reached at the start is most often a wrong URL: said in seconds.
      // Once connected, listen waits for it as long as it takes (a restart, a deploy).
      maxFailuresBeforeFirst: 3,
      signal: stop.signal,
      onMessage,
      onReconnect: (r) => out.warn(`event stream: ${r.reason}; reconnecting in ${(r.waitMs / 1000).toFixed(1)} s${r.resumeFrom ? `, resuming after ${r.resumeFrom}` : ''}`),
    });
  } finally {
    stop.abort();
    if (pending.size) await Promise.race([Promise.allSettled([...pending]), new Promise((r) => setTimeout(r, REPORT_DRAIN_MS).unref())]);
  }
  out.info('listener stopped');
}
