/** `verity listen sessions`: the service's event-stream sessions and what the local app answered (GET /v1/events/stream/sessions). */
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { columns } from '../../output/human/layout.js';
import type { Output } from '../../output/output.js';
import type { CliRuntime } from '../runtime.js';
import { streamApi } from './stream-api.js';

export interface SessionResult {
  event_id: string;
  route: string | null;
  status: number | null;
  latency_ms: number | null;
  error: string | null;
  at?: string;
}

export interface StreamSessionView {
  session_id: string;
  opened_at: string;
  closed_at: string | null;
  /** open | closed | lost (its serve process stopped renewing it: killed); absent from older services. */
  state?: string;
  last_seen_at?: string;
  events?: string[];
  environment?: string;
  results?: SessionResult[];
}

function resultLine(out: Output, r: SessionResult): string {
  const s = out.style;
  const answer = r.status === null ? (r.error ? s.red(r.error) : s.dim('received, not forwarded')) : r.status < 300 ? s.green(String(r.status)) : s.red(String(r.status));
  return [r.at?.slice(11, 19) ?? '', r.event_id, r.route ?? '', answer, r.latency_ms !== null && r.status !== null ? `${r.latency_ms} ms` : '']
    .filter(Boolean)
    .join('  ');
}

/** A service before `state` existed: open while not closed. */
function stateCell(out: Output, x: StreamSessionView): string {
  const state = x.state ?? (x.closed_at ? 'closed' : 'open');
  return state === 'open' ? out.style.green('open') : state === 'lost' ? out.style.yellow('lost') : state;
}

export function renderSessions(out: Output, sessions: StreamSessionView[], perSession: number): string {
  if (!sessions.length) return 'No event-stream sessions yet: start one with `verity listen --remote`';
  return columns(
    out,
    [{ header: 'Session' }, { header: 'Env' }, { header: 'Opened' }, { header: 'State' }, { header: 'Closed' }, { header: 'Results' }, { header: 'Events', flex: true }],
    sessions.map((x) => ({
      cells: [
        x.session_id,
        x.environment ?? '',
        x.opened_at.replace('T', ' ').slice(0, 19),
        stateCell(out, x),
        x.closed_at ? x.closed_at.replace('T', ' ').slice(0, 19) : '',
        String(x.results?.length ?? 0),
        x.events?.length ? x.events.join(', ') : 'all',
      ],
      below: (x.results ?? []).slice(0, perSession).map((r) => resultLine(out, r)),
    })),
  );
}

export default async function listenSessions(rt: CliRuntime, cmd: Command): Promise<void> {
  const { limit } = cmd.opts<{ limit: string }>();
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 50)
    throw new VerityError('VALIDATION_FAILED', `--limit must be 1 to 50, got "${limit}"`, { details: [{ field: 'limit', issue: '1 to 50' }] });
  const { callRemote } = await import('../../client/remote-engine.js');
  const api = await streamApi(rt, 'listen sessions', 'sessions are kept by the service that `verity listen --remote` connects to');
  const page = await callRemote<{ data: StreamSessionView[] }>(api, 'GET', '/events/stream/sessions', undefined, rt.ctx.interrupted);
  rt.out.result({ data: page.data }, (x, out) => renderSessions(out, x.data, Number(limit)));
}
