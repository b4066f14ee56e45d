/** A sandbox engine whose network ports fail loudly: the sandbox must never use them. */
import { createSandboxEngine } from '../../../src/engine/index.js';
import type { EnginePorts } from '../../../src/engine/types.js';

export const networkCalls: string[] = [];

const offline = (what: string) => async (): Promise<never> => {
  networkCalls.push(what);
  throw new Error(`sandbox used the network (${what})`);
};

export const sandboxPorts: EnginePorts = {
  clock: { now: () => new Date('2026-03-01T00:00:00Z') },
  config: {},
  http: { request: offline('http.request'), getJson: offline('http.getJson') },
  fetchInput: offline('fetchInput'),
};

export const sandbox = createSandboxEngine(sandboxPorts);
