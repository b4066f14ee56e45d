/** The event stream's SSE framing (src/domain/event-stream.ts): one message per event, unforgeable by content. */
import { describe, expect, it } from 'vitest';
import { eventMessage, missedMessage, sseMessage } from '../../../src/domain/event-stream.js';
import { parseEventsFilter } from '../../../src/server/event-stream-routes.js';

describe('event stream framing', () => {
  it('writes id, event and one JSON data line, ended by a blank line', () => {
    expect(sseMessage({ retry: 1000, event: 'session', data: { a: 1 } })).toBe('retry: 1000\nevent: session\ndata: {"a":1}\n\n');
    expect(sseMessage({ id: 'wh_1', event: 'x', data: 'y' })).toBe('id: wh_1\nevent: x\ndata: "y"\n\n');
  });

  it('a body with line breaks and a fake message inside stays inside its data line', () => {
    const body = '{"id":"wh_1"}\n\nevent: session\ndata: {"secret":"forged"}\n\n';
    const out = eventMessage({ id: 'wh_1', type: 'verification.completed', created_at: '2026-01-01T00:00:00.000Z', body }, { 'x-a': 'b' });
    const lines = out.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.slice(0, 2)).toEqual(['id: wh_1', 'event: verification.completed']);
    expect(JSON.parse(lines[2]!.slice('data: '.length))).toEqual({ id: 'wh_1', type: 'verification.completed', created_at: '2026-01-01T00:00:00.000Z', headers: { 'x-a': 'b' }, body });
    expect(out.endsWith('\n\n')).toBe(true);
    // Line breaks in an id or a name are dropped, never ending the field.
    expect(sseMessage({ id: 'a\nevent: b', data: 1 })).toBe('id: aevent: b\ndata: 1\n\n');
  });

  it('missed names the replay command; the events filter takes known types only', () => {
    expect(missedMessage('wh_1', 'expired', null)).toMatchObject({ after: 'wh_1', reason: 'expired', oldest_retained: null });
    expect(String(missedMessage('wh_1', 'expired', null).replay)).toContain('verity webhooks replay EVENT_ID');
    expect(parseEventsFilter(undefined)).toBeNull();
    expect(parseEventsFilter('verification.completed, batch.partial,verification.completed')).toEqual(['verification.completed', 'batch.partial']);
    expect(() => parseEventsFilter('verification.completed,nope')).toThrow(/Unknown event type "nope"/);
  });
});
