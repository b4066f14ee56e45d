/** `verity trigger EVENT --remote [URL]`: the service emits a sample event of that type (POST /v1/events/trigger). */
import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { streamApi } from './stream-api.js';

interface Triggered {
  event_id: string;
  type: string;
  environment?: string;
}

export default async function trigger(rt: CliRuntime, cmd: Command): Promise<void> {
  const [{ parseEventType }, { callRemote }] = await Promise.all([import('../../webhooks/service.js'), import('../../client/remote-engine.js')]);
  const type = parseEventType(cmd.args[0], 'event-type');
  const api = await streamApi(rt, 'trigger', 'to send a signed sample to a local listener or app, use `verity webhooks trigger EVENT --to URL`');
  const r = await callRemote<Triggered>(api, 'POST', '/events/trigger', { type }, rt.ctx.interrupted);
  const host = new URL(api.baseUrl).host;
  rt.out.result(r, (x) => `${x.type} ${x.event_id} emitted by ${host}${x.environment ? ` (${x.environment})` : ''}: streams and webhooks subscribed to ${x.type} receive it`);
}
